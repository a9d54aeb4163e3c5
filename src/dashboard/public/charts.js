// Charts drawn as SVG in the page: no chart library, nothing fetched.

const NS = 'http://www.w3.org/2000/svg';
export const PALETTE = ['#2563eb', '#dc2626', '#d97706', '#059669', '#7c3aed', '#db2777', '#0891b2', '#65a30d', '#9333ea', '#475569'];

function el(name, attrs = {}, text) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = String(text);
  return node;
}

function frame(title, width, height) {
  const svg = el('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': title, class: 'chart' });
  svg.append(el('title', {}, title));
  return svg;
}

function empty() {
  const p = document.createElement('p');
  p.className = 'empty';
  p.textContent = 'No data in this range.';
  return p;
}

/** Stacked columns: points [{label, counts: {group: n}}], one colour per group, with a legend. */
/** Drawing width: the chart scales to its box, so on a narrow screen draw narrower to keep text legible. */
function drawWidth(max) {
  return Math.round(Math.min(max, Math.max(320, window.innerWidth - 60)));
}

export function stackedColumns(title, points, groups) {
  const wrap = document.createElement('figure');
  const width = drawWidth(720);
  const height = 220;
  const pad = { l: 36, r: 8, t: 8, b: 28 };
  const sums = points.map((p) => groups.reduce((s, g) => s + (p.counts[g] ?? 0), 0));
  const peak = Math.max(0, ...sums);
  // An even top so the middle grid line falls on a whole number.
  const max = Math.max(2, peak + (peak % 2));
  const svg = frame(title, width, height);
  const plotW = width - pad.l - pad.r;
  const plotH = height - pad.t - pad.b;
  for (const tick of [0, 0.5, 1]) {
    const y = pad.t + plotH - tick * plotH;
    svg.append(el('line', { x1: pad.l, x2: width - pad.r, y1: y, y2: y, stroke: '#e5e7eb' }));
    svg.append(el('text', { x: pad.l - 4, y: y + 4, 'text-anchor': 'end', 'font-size': 11, fill: '#4b5563' }, Math.round(tick * max)));
  }
  const step = points.length ? plotW / points.length : plotW;
  const barW = Math.max(1, step * 0.8);
  const labelEvery = Math.max(1, Math.ceil(points.length / Math.max(3, Math.floor(width / 90))));
  points.forEach((p, i) => {
    const x = pad.l + i * step + (step - barW) / 2;
    let y = pad.t + plotH;
    groups.forEach((g, gi) => {
      const n = p.counts[g] ?? 0;
      if (!n) return;
      const h = (n / max) * plotH;
      y -= h;
      const rect = el('rect', { x: x.toFixed(1), y: y.toFixed(1), width: barW.toFixed(1), height: h.toFixed(1), fill: PALETTE[gi % PALETTE.length] });
      rect.append(el('title', {}, `${p.label} ${g}: ${n}`));
      svg.append(rect);
    });
    if (i % labelEvery === 0) svg.append(el('text', { x: (x + barW / 2).toFixed(1), y: height - 8, 'text-anchor': 'middle', 'font-size': 10, fill: '#4b5563' }, p.label));
  });
  wrap.append(svg);
  const legend = document.createElement('figcaption');
  legend.className = 'legend';
  if (!groups.length) legend.textContent = 'No threats in this range.';
  groups.forEach((g, gi) => {
    const item = document.createElement('span');
    const swatch = document.createElement('span');
    swatch.className = `swatch c${gi % PALETTE.length}`;
    item.append(swatch, document.createTextNode(g));
    legend.append(item);
  });
  wrap.append(legend);
  return wrap;
}

/** Horizontal bars: items [{label, value}], labels left, values right. */
export function horizontalBars(title, items, format = String) {
  if (!items.length) return empty();
  const width = drawWidth(600);
  const row = 26;
  const labelW = Math.round(width * 0.36);
  const valueW = 80;
  const maxChars = Math.floor(labelW / 7);
  const svg = frame(title, width, items.length * row + 8);
  const max = Math.max(...items.map((i) => i.value), 1e-12);
  items.forEach((item, i) => {
    const y = 4 + i * row;
    const w = item.value > 0 ? Math.max(1, (item.value / max) * (width - labelW - valueW - 10)) : 0;
    const label = item.label.length > maxChars ? item.label.slice(0, maxChars - 1) + '…' : item.label;
    const text = el('text', { x: labelW - 6, y: y + 16, 'text-anchor': 'end', 'font-size': 12, fill: '#111827' }, label);
    text.append(el('title', {}, item.label));
    svg.append(text, el('rect', { x: labelW, y: y + 3, width: w.toFixed(1), height: row - 8, fill: PALETTE[i % PALETTE.length] }), el('text', { x: (labelW + w + 6).toFixed(1), y: y + 16, 'font-size': 12, fill: '#374151' }, format(item.value)));
  });
  const fig = document.createElement('figure');
  fig.append(svg);
  return fig;
}
