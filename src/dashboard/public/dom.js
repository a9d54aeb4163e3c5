// Small DOM helpers. Text always goes in as text nodes: nothing from the API is parsed as HTML.

export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (typeof v === 'function') node.addEventListener(k.replace(/^on/, ''), v);
    else if (k === 'hidden') node.hidden = Boolean(v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

export function clear(node) {
  while (node.firstChild) node.firstChild.remove();
}

/** A table inside a horizontally scrolling wrapper, so narrow screens never overflow the page. */
export function table(headers, rows, id) {
  return h('div', { class: 'table-wrap' },
    h('table', id ? { id } : {}, h('thead', {}, h('tr', {}, ...headers.map((c) => h('th', { scope: 'col' }, c)))), h('tbody', {}, ...rows.map((r) => h('tr', {}, ...r.map((c) => h('td', {}, c)))))));
}

let uid = 0;
export function field(name, label, type, value, extra = {}) {
  const id = `f-${name}-${++uid}`;
  return h('div', { class: 'field' }, h('label', { for: id }, label), h('input', { id, name, type, value: value ?? '', ...extra }));
}

export function select(name, label, options, value) {
  const id = `f-${name}-${++uid}`;
  return h('div', { class: 'field' }, h('label', { for: id }, label),
    h('select', { id, name }, ...options.map((o) => h('option', { value: o, ...(o === (value ?? '') ? { selected: true } : {}) }, o || 'Any'))));
}

export function fmtTime(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

export function fmtMoney(n) {
  const v = Number(n) || 0;
  return `$${v.toFixed(v && v < 0.01 ? 6 : 2)}`;
}

/**
 * The input with every threat span wrapped in <mark>. Spans are UTF-16 offsets into the input;
 * spans of a message list (message_index) refer to one message, not the joined excerpt, so they
 * are listed in the threats table but not drawn here. Spans past a stored excerpt are clipped.
 */
export function highlight(input, threats) {
  const spans = threats
    .filter((t) => t.message_index === undefined || t.message_index === null)
    .flatMap((t) => t.spans.map((s) => ({ start: Math.max(0, s.start), end: Math.min(input.length, s.end), label: `${t.attack_type} (${t.rule_id || t.detector})` })))
    .filter((s) => s.end > s.start)
    .sort((a, b) => a.start - b.start);
  const merged = [];
  for (const s of spans) {
    const last = merged[merged.length - 1];
    if (last && s.start <= last.end) {
      last.end = Math.max(last.end, s.end);
      if (!last.label.includes(s.label)) last.label += `, ${s.label}`;
    } else merged.push({ ...s });
  }
  const out = [];
  let at = 0;
  for (const m of merged) {
    if (m.start > at) out.push(input.slice(at, m.start));
    out.push(h('mark', { title: m.label }, input.slice(m.start, m.end)));
    at = m.end;
  }
  out.push(input.slice(at));
  return out;
}
