/**
 * Charts as inline SVG strings: no script, no font or image fetched, so a report opens anywhere.
 * Every chart carries role="img" and a <title> for screen readers.
 */

export const PALETTE = ['#2563eb', '#dc2626', '#d97706', '#059669', '#7c3aed', '#db2777', '#0891b2', '#65a30d', '#9333ea', '#475569'];

export function esc(s: string | number): string {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export interface StackPoint {
  label: string;
  counts: Record<string, number>;
}

/** Stacked columns (one per point), a colour per group, and a legend. */
export function stackedColumns(title: string, points: StackPoint[], groups: string[]): string {
  const width = 720;
  const height = 240;
  const pad = { l: 40, r: 10, t: 10, b: 40 };
  const peak = Math.max(...points.map((p) => groups.reduce((s, g) => s + (p.counts[g] ?? 0), 0)), 0);
  // An even top so the middle grid line falls on a whole number.
  const max = Math.max(2, peak + (peak % 2));
  const plotW = width - pad.l - pad.r;
  const plotH = height - pad.t - pad.b;
  const step = points.length ? plotW / points.length : plotW;
  const barW = Math.max(1, step * 0.8);
  const labelEvery = Math.max(1, Math.ceil(points.length / 8));
  const parts: string[] = [];
  for (const tick of [0, 0.5, 1]) {
    const y = pad.t + plotH - tick * plotH;
    parts.push(`<line x1="${pad.l}" x2="${width - pad.r}" y1="${y}" y2="${y}" stroke="#e5e7eb"/><text x="${pad.l - 4}" y="${y + 4}" text-anchor="end" font-size="11" fill="#4b5563">${Math.round(tick * max)}</text>`);
  }
  points.forEach((p, i) => {
    let y = pad.t + plotH;
    const x = pad.l + i * step + (step - barW) / 2;
    groups.forEach((g, gi) => {
      const n = p.counts[g] ?? 0;
      if (!n) return;
      const h = (n / max) * plotH;
      y -= h;
      parts.push(`<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}" fill="${PALETTE[gi % PALETTE.length]}"><title>${esc(p.label)} ${esc(g)}: ${n}</title></rect>`);
    });
    if (i % labelEvery === 0) parts.push(`<text x="${(x + barW / 2).toFixed(1)}" y="${height - pad.b + 16}" text-anchor="middle" font-size="10" fill="#4b5563">${esc(p.label)}</text>`);
  });
  const legend = groups
    .map((g, gi) => `<span class="legend-item"><svg width="10" height="10" aria-hidden="true"><rect width="10" height="10" fill="${PALETTE[gi % PALETTE.length]}"/></svg> ${esc(g)}</span>`)
    .join(' ');
  return `<figure><svg viewBox="0 0 ${width} ${height}" width="100%" role="img" aria-label="${esc(title)}"><title>${esc(title)}</title>${parts.join('')}</svg><figcaption>${legend || 'No data in this range.'}</figcaption></figure>`;
}

/** Horizontal bars with the label on the left and the formatted value on the right. */
export function horizontalBars(title: string, items: { label: string; value: number }[], format: (n: number) => string = String): string {
  if (!items.length) return `<p class="empty">No data in this range.</p>`;
  const width = 720;
  const row = 26;
  const labelW = 230;
  const valueW = 90;
  const height = items.length * row + 8;
  const max = Math.max(...items.map((i) => i.value), 1e-12);
  const bars = items
    .map((item, i) => {
      const y = 4 + i * row;
      const w = item.value > 0 ? Math.max(1, (item.value / max) * (width - labelW - valueW - 10)) : 0;
      const label = item.label.length > 34 ? item.label.slice(0, 33) + '…' : item.label;
      return `<text x="${labelW - 6}" y="${y + 16}" text-anchor="end" font-size="12" fill="#111827">${esc(label)}<title>${esc(item.label)}</title></text><rect x="${labelW}" y="${y + 3}" width="${w.toFixed(1)}" height="${row - 8}" fill="${PALETTE[i % PALETTE.length]}"/><text x="${(labelW + w + 6).toFixed(1)}" y="${y + 16}" font-size="12" fill="#374151">${esc(format(item.value))}</text>`;
    })
    .join('');
  return `<figure><svg viewBox="0 0 ${width} ${height}" width="100%" role="img" aria-label="${esc(title)}"><title>${esc(title)}</title>${bars}</svg></figure>`;
}
