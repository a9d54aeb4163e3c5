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

/**
 * A table in a wrapper that scrolls sideways if it must. On narrow screens (style.css) each row
 * becomes a card and each cell shows its column name from data-label.
 */
export function table(headers, rows, id) {
  return h('div', { class: 'table-wrap' },
    h('table', id ? { id, class: 'stack' } : { class: 'stack' }, h('thead', {}, h('tr', {}, ...headers.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, ...rows.map((r) => h('tr', {}, ...r.map((c, i) => h('td', { 'data-label': headers[i] }, c)))))));
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
 * The input with every threat span marked. Spans are UTF-16 offsets into the input; where spans
 * overlap (a rule's match inside a classifier's whole-text span) the overlap is marked darker
 * (class depth-2, depth-3) and its title names every threat covering it. Spans of a message list
 * (message_index) refer to one message, not the joined excerpt: they are listed in the threats
 * table but not drawn here. Spans past a stored excerpt are clipped.
 */
export function highlight(input, threats) {
  const spans = threats
    .filter((t) => t.message_index === undefined || t.message_index === null)
    .flatMap((t) => t.spans.map((s) => ({ start: Math.max(0, s.start), end: Math.min(input.length, s.end), label: `${t.attack_type} (${t.rule_id || t.detector})` })))
    .filter((s) => s.end > s.start);
  const cuts = [...new Set([0, input.length, ...spans.flatMap((s) => [s.start, s.end])])].sort((a, b) => a - b);
  const out = [];
  for (let i = 0; i < cuts.length - 1; i++) {
    const [from, to] = [cuts[i], cuts[i + 1]];
    const text = input.slice(from, to);
    const covering = spans.filter((s) => s.start <= from && s.end >= to);
    if (!covering.length) out.push(text);
    else out.push(h('mark', { class: `depth-${Math.min(3, covering.length)}`, title: [...new Set(covering.map((s) => s.label))].join(', ') }, text));
  }
  return out;
}
