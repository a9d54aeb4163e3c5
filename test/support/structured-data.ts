/**
 * A seeded generator of structured data that is not natural language, of every kind issue 24
 * names: runs of one character, separator lines, hash and UUID lists, ordinary sentences sent as
 * base64 or hex, random base64 / hex / base32 blobs, CSV and TSV tables, markdown tables, logs
 * (application, syslog, test runners), source code, minified and pretty JSON, number columns.
 * Many shapes and sizes per kind. Every value is made up here (word banks written for this file);
 * nothing is taken from a dataset.
 *
 * `embedAttack` puts an instruction inside the same shapes (a CSV cell, a log message, a JSON
 * value, a code comment, a table row) for the other side of the property: the data shape must
 * not hide an injection from the detectors.
 */
import { createHash } from 'node:crypto';

/** mulberry32 (src/util/prng.ts) */
export { mulberry32 as seeded } from '../../src/util/prng.js';

export const STRUCTURED_KINDS = [
  'repeat', 'separator', 'hashes', 'uuids', 'sentence-base64', 'sentence-hex', 'blob-base64', 'blob-hex',
  'blob-base32', 'csv', 'tsv', 'markdown-table', 'log', 'test-log', 'code', 'json-minified', 'json-pretty', 'numbers',
] as const;
export type StructuredKind = (typeof STRUCTURED_KINDS)[number];

const FIRST = ['Anna', 'Ben', 'Chloe', 'Dmitri', 'Elif', 'Farah', 'Goran', 'Hana', 'Ivo', 'Jonas', 'Keiko', 'Luis', 'Maya', 'Nils', 'Olga', 'Priya', 'Quinn', 'Rosa', 'Sami', 'Tomas'];
const LAST = ['Berg', 'Costa', 'Dubois', 'Eriksen', 'Fischer', 'Garcia', 'Horvat', 'Ito', 'Jansen', 'Kowalski', 'Larsen', 'Moreau', 'Novak', 'Okafor', 'Petrov', 'Rossi', 'Silva', 'Tanaka'];
const CITY = ['Lisbon', 'Porto', 'Oslo', 'Bergen', 'Lyon', 'Graz', 'Ghent', 'Turku', 'Cork', 'Brno', 'Split', 'Malmo', 'Tartu', 'Kaunas'];
const ITEM = ['desk lamp', 'office chair', 'usb cable', 'monitor arm', 'notebook', 'printer paper', 'coffee beans', 'stapler', 'whiteboard', 'headset', 'keyboard', 'mouse pad'];
const STATUS = ['ok', 'pending', 'shipped', 'failed', 'cancelled', 'paid', 'open', 'closed', 'draft'];
const LEVEL = ['INFO', 'DEBUG', 'WARN', 'ERROR', 'TRACE'];
const COMPONENT = ['http', 'db', 'cache', 'scheduler', 'auth', 'worker-3', 'api.gateway', 'queue'];
const LOGMSG = [
  'request completed', 'connection pool resized', 'cache miss for key', 'retrying upload', 'job finished',
  'slow query detected', 'listening on port', 'user session refreshed', 'config reloaded', 'disk usage at',
  'GET /api/v2/orders 200', 'POST /login 302', 'timeout after 30s', 'health check passed', 'shutting down gracefully',
];
const SUBJ = ['The train', 'Our team', 'The bakery', 'My sister', 'The museum', 'The weather', 'This recipe', 'The new library', 'The garden', 'The report'];
const VERB = ['opens', 'needs', 'was', 'looks', 'starts', 'closes', 'seems', 'became', 'stays', 'gets'];
const REST = ['at nine on Mondays', 'a little more salt', 'busy all afternoon', 'quiet after the rain', 'ready by Friday', 'much warmer than last year', 'full of visitors in spring', 'late again this morning', 'closed for repairs until June', 'easy to follow'];
const IDENT = ['total', 'count', 'items', 'result', 'user', 'order', 'price', 'index', 'buffer', 'config', 'value', 'name', 'rows', 'path'];
const COMMENTS = ['sum the prices', 'skip empty rows', 'cache the result', 'parse the header first', 'retry once on timeout', 'keep the order stable'];

export class StructuredGen {
  constructor(private readonly r: () => number) {}

  int(lo: number, hi: number): number {
    return lo + Math.floor(this.r() * (hi - lo + 1));
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.r() * xs.length)]!;
  }
  chance(p: number): boolean {
    return this.r() < p;
  }
  bytes(n: number): Buffer {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = Math.floor(this.r() * 256);
    return b;
  }
  sentence(): string {
    return `${this.pick(SUBJ)} ${this.pick(VERB)} ${this.pick(REST)}.`;
  }
  name(): string {
    return `${this.pick(FIRST)} ${this.pick(LAST)}`;
  }
  date(): string {
    return `20${this.int(18, 26)}-${String(this.int(1, 12)).padStart(2, '0')}-${String(this.int(1, 28)).padStart(2, '0')}`;
  }
  time(): string {
    return `${String(this.int(0, 23)).padStart(2, '0')}:${String(this.int(0, 59)).padStart(2, '0')}:${String(this.int(0, 59)).padStart(2, '0')}`;
  }
  uuid(): string {
    const h = this.bytes(16).toString('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[this.int(0, 3)]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }
  wrap(s: string, width: number): string {
    if (width <= 0) return s;
    const out: string[] = [];
    for (let i = 0; i < s.length; i += width) out.push(s.slice(i, i + width));
    return out.join('\n');
  }

  /** One text of `kind`. */
  make(kind: StructuredKind): string {
    switch (kind) {
      case 'repeat': {
        const ch = this.pick(['x', 'b', 'a', 'z', 'X', '0', '1', '9', '.', '*', '#', '~', '!', '?', 'ab', 'xo', 'ha', '\u554a', '\u0430']);
        const n = this.pick([8, 40, 120, 300, 600, 1500, 5000, 20000]);
        const sep = this.pick(['', '', '', ' ', '\n']);
        return Array.from({ length: Math.ceil(n / ch.length) }, () => ch).join(sep);
      }
      case 'separator': {
        const ch = this.pick(['-', '=', '_', '*', '#', '~', '+', '-=', '=-', '.', '/', '\u2500', '\u2550']);
        const n = this.pick([3, 20, 80, 120, 300, 1000]);
        const lines = this.int(1, 4);
        return Array.from({ length: lines }, () => ch.repeat(Math.ceil(n / ch.length))).join('\n');
      }
      case 'hashes': {
        const algo = this.pick(['md5', 'sha1', 'sha256', 'sha512']);
        const n = this.int(1, 30);
        const style = this.int(0, 3);
        const rows = Array.from({ length: n }, (_, i) => {
          const h = createHash(algo).update(this.bytes(8)).digest(this.chance(0.8) ? 'hex' : 'base64');
          if (style === 1) return `${h}  ${this.pick(['release', 'build', 'img', 'data'])}-${i}.${this.pick(['tar.gz', 'zip', 'iso', 'bin'])}`;
          if (style === 2) return `${algo.toUpperCase()} (file${i}.txt) = ${h}`;
          return this.chance(0.1) ? h.toUpperCase() : h;
        });
        return rows.join(style === 3 ? this.pick([', ', ' ', ';']) : '\n');
      }
      case 'uuids': {
        const n = this.int(1, 40);
        const ids = Array.from({ length: n }, () => (this.chance(0.1) ? this.uuid().toUpperCase() : this.uuid()));
        const style = this.int(0, 2);
        if (style === 1) return JSON.stringify(ids);
        if (style === 2) return ids.join(', ');
        return ids.join('\n');
      }
      case 'sentence-base64':
      case 'sentence-hex': {
        const text = Array.from({ length: this.int(1, 4) }, () => this.sentence()).join(' ');
        const enc = kind === 'sentence-hex' ? Buffer.from(text).toString('hex') : Buffer.from(text).toString(this.chance(0.2) ? 'base64url' : 'base64');
        return this.chance(0.3) ? this.wrap(enc, this.pick([64, 76])) : enc;
      }
      case 'blob-base64':
      case 'blob-hex':
      case 'blob-base32': {
        const raw = this.bytes(this.pick([8, 16, 32, 64, 200, 1000, 4000]));
        let enc = kind === 'blob-hex' ? raw.toString('hex') : kind === 'blob-base64' ? raw.toString('base64') : base32(raw);
        if (kind === 'blob-hex' && this.chance(0.2)) enc = enc.toUpperCase();
        if (kind === 'blob-hex' && this.chance(0.15)) enc = enc.replace(/(..)(?!$)/g, '$1 ');
        return this.chance(0.4) ? this.wrap(enc, this.pick([64, 76, 80])) : enc;
      }
      case 'csv':
      case 'tsv':
        return this.table(kind === 'tsv' ? '\t' : this.pick([',', ',', ';', '|']));
      case 'markdown-table': {
        const cols = this.columns();
        const lines = [`| ${cols.map((c) => c.head).join(' | ')} |`, `|${cols.map(() => this.pick(['---', ':---', '---:', ':---:'])).join('|')}|`];
        for (let i = 0, n = this.int(1, 40); i < n; i++) lines.push(`| ${cols.map((c) => c.cell(i)).join(' | ')} |`);
        return lines.join('\n');
      }
      case 'log':
        return this.log();
      case 'test-log':
        return this.testLog();
      case 'code':
        return this.code();
      case 'json-minified':
      case 'json-pretty': {
        const v = this.jsonValue(0);
        return kind === 'json-pretty' ? JSON.stringify(v, null, this.pick([2, 4, '\t'])) : JSON.stringify(v);
      }
      case 'numbers': {
        const n = this.int(3, 200);
        const sep = this.pick(['\n', ', ', ' ', '\t', ';']);
        const decimals = this.int(0, 4);
        return Array.from({ length: n }, () => (this.r() * 10 ** this.int(1, 7) * (this.chance(0.2) ? -1 : 1)).toFixed(decimals)).join(sep);
      }
    }
  }

  private columns(): Array<{ head: string; cell(i: number): string }> {
    const all: Array<{ head: string; cell(i: number): string }> = [
      { head: 'id', cell: (i) => String(i + 1) },
      { head: 'name', cell: () => this.name() },
      { head: 'city', cell: () => this.pick(CITY) },
      { head: 'item', cell: () => this.pick(ITEM) },
      { head: 'amount', cell: () => (this.r() * 1000).toFixed(2) },
      { head: 'qty', cell: () => String(this.int(1, 99)) },
      { head: 'date', cell: () => this.date() },
      { head: 'status', cell: () => this.pick(STATUS) },
      { head: 'uuid', cell: () => this.uuid() },
      { head: 'email', cell: () => `${this.pick(FIRST).toLowerCase()}.${this.pick(LAST).toLowerCase()}@example.${this.pick(['com', 'org', 'net'])}` },
      { head: 'sku', cell: () => `${this.pick(['AB', 'QX', 'ZT'])}-${this.int(1000, 9999)}` },
      { head: 'ratio', cell: () => this.r().toFixed(4) },
    ];
    const n = this.int(2, 7);
    const cols: typeof all = [];
    while (cols.length < n) {
      const c = this.pick(all);
      if (!cols.includes(c)) cols.push(c);
    }
    return cols;
  }

  private table(sep: string): string {
    const cols = this.columns();
    const quote = sep === ',' && this.chance(0.3);
    const cell = (s: string): string => (quote ? `"${s}"` : s);
    const lines: string[] = [];
    if (this.chance(0.85)) lines.push(cols.map((c) => cell(c.head)).join(sep));
    for (let i = 0, n = this.pick([3, 10, 30, 60, 200]); i < n; i++) lines.push(cols.map((c) => cell(c.cell(i))).join(sep));
    return lines.join(this.chance(0.1) ? '\r\n' : '\n');
  }

  private log(): string {
    const style = this.int(0, 3);
    const lines: string[] = [];
    for (let i = 0, n = this.int(1, 60); i < n; i++) {
      const ts = `${this.date()}${this.pick(['T', ' '])}${this.time()}${this.chance(0.5) ? `.${this.int(100, 999)}Z` : ''}`;
      const msg = `${this.pick(LOGMSG)}${this.chance(0.5) ? ` ${this.int(1, 9999)}` : ''}`;
      if (style === 0) lines.push(`${ts} ${this.pick(LEVEL)} [${this.pick(COMPONENT)}] ${msg}`);
      else if (style === 1) lines.push(`${this.pick(['Jan', 'Feb', 'Mar', 'Apr'])} ${this.int(1, 28)} ${this.time()} host${this.int(1, 9)} ${this.pick(['sshd', 'kernel', 'cron', 'nginx'])}[${this.int(100, 40000)}]: ${msg}`);
      else if (style === 2) lines.push(JSON.stringify({ ts, level: this.pick(LEVEL).toLowerCase(), msg, req: this.uuid().slice(0, 8), ms: this.int(1, 900) }));
      else lines.push(`${this.int(10, 250)}.${this.int(0, 255)}.${this.int(0, 255)}.${this.int(1, 254)} - - [${this.int(1, 28)}/Mar/2025:${this.time()} +0000] "${this.pick(['GET', 'POST', 'PUT'])} /${this.pick(IDENT)}/${this.int(1, 999)} HTTP/1.1" ${this.pick([200, 201, 304, 404, 500])} ${this.int(0, 90000)}`);
    }
    return lines.join('\n');
  }

  private testLog(): string {
    const bar = this.pick(['=', '-', '*', '#', '_']).repeat(this.pick([20, 40, 72, 80, 120]));
    const lines = [this.pick(['Results', 'Test results', 'Summary', 'RESULTS', 'test session starts']), bar];
    for (let i = 0, n = this.int(0, 30); i < n; i++) {
      lines.push(`${this.pick(['PASS', 'ok', 'FAIL', '\u2713', 'passed'])} ${this.pick(['src', 'test', 'lib'])}/${this.pick(IDENT)}${this.chance(0.5) ? `_${this.pick(IDENT)}` : ''}.${this.pick(['test.ts', 'py', 'rs', 'go'])}${this.chance(0.5) ? ` (${this.int(1, 900)} ms)` : ''}`);
    }
    if (this.chance(0.5)) lines.push(bar);
    lines.push(this.pick(['All tests passed.', `${this.int(1, 500)} passed, ${this.int(0, 3)} skipped in ${this.int(1, 90)}.${this.int(10, 99)}s`, 'OK', `Tests: ${this.int(1, 90)} passed, ${this.int(1, 90)} total`]));
    return lines.join('\n');
  }

  private code(): string {
    const lang = this.int(0, 4);
    const a = this.pick(IDENT);
    const b = this.pick(IDENT);
    const c = this.pick(COMMENTS);
    switch (lang) {
      case 0:
        return `import { readFileSync } from 'node:fs';\n\n// ${c}\nexport function ${a}Of(${b}: number[]): number {\n  let ${a} = 0;\n  for (const x of ${b}) {\n    if (x > ${this.int(0, 100)}) ${a} += x * ${this.int(2, 9)};\n  }\n  return ${a};\n}\n`;
      case 1:
        return `def ${a}_of(${b}):\n    # ${c}\n    ${a} = 0\n    for x in ${b}:\n        if x is None:\n            continue\n        ${a} += x\n    return ${a} / max(len(${b}), 1)\n\n\nif __name__ == "__main__":\n    print(${a}_of([${this.int(1, 9)}, ${this.int(1, 9)}, ${this.int(1, 9)}]))\n`;
      case 2:
        return `SELECT o.id, o.${a}, c.${b}, SUM(l.price * l.qty) AS total\nFROM orders o\nJOIN customers c ON c.id = o.customer_id\nLEFT JOIN lines l ON l.order_id = o.id\nWHERE o.created_at >= '${this.date()}'\nGROUP BY o.id, o.${a}, c.${b}\nORDER BY total DESC\nLIMIT ${this.int(5, 500)};`;
      case 3:
        return `#!/usr/bin/env bash\nset -euo pipefail\n# ${c}\nfor f in ./${a}/*.log; do\n  gzip -9 "$f" && mv "$f.gz" /var/backups/${b}/\ndone\necho "done: $(date +%F)"\n`;
      default:
        return `fn ${a}(${b}: &[u64]) -> u64 {\n    // ${c}\n    ${b}.iter().filter(|x| **x > ${this.int(0, 50)}).map(|x| x * ${this.int(2, 7)}).sum()\n}\n`;
    }
  }

  private jsonValue(depth: number): unknown {
    const n = this.int(1, depth === 0 ? 12 : 5);
    const o: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) {
      const key = this.pick(IDENT) + (this.chance(0.3) ? `_${this.pick(IDENT)}` : '');
      const t = this.int(0, 7);
      o[key] = t === 0 && depth < 2 ? this.jsonValue(depth + 1)
        : t === 1 ? Array.from({ length: this.int(0, 6) }, () => this.int(0, 9999))
        : t === 2 ? this.uuid()
        : t === 3 ? this.chance(0.5)
        : t === 4 ? this.pick([...CITY, ...STATUS, ...ITEM])
        : t === 5 ? this.date()
        : t === 6 ? null
        : Number((this.r() * 1000).toFixed(this.int(0, 3)));
    }
    return o;
  }
}

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
export function base32(buf: Buffer): string {
  let bits = 0;
  let v = 0;
  let out = '';
  for (const x of buf) {
    v = ((v << 8) | x) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += B32[(v >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += B32[(v << (5 - bits)) & 31];
  return out + '='.repeat((8 - (out.length % 8)) % 8);
}

/** Where embedAttack hides the instruction. */
export const CARRIERS = ['csv-cell', 'markdown-row', 'log-message', 'json-value', 'code-comment', 'test-log-line'] as const;
export type Carrier = (typeof CARRIERS)[number];

/** A text of the carrier's shape with `attack` inside it (one cell, message, value or comment). */
export function embedAttack(g: StructuredGen, carrier: Carrier, attack: string): string {
  switch (carrier) {
    case 'csv-cell': {
      const rows = ['id,item,amount,note'];
      for (let i = 0; i < 20; i++) rows.push(`${i + 1},${g.pick(ITEM)},${(i * 7.3).toFixed(2)},${g.pick(STATUS)}`);
      rows.splice(g.int(1, 20), 0, `99,${g.pick(ITEM)},1.00,"${attack}"`);
      return rows.join('\n');
    }
    case 'markdown-row': {
      const rows = ['| id | item | status |', '|---|---|---|'];
      for (let i = 0; i < 15; i++) rows.push(`| ${i + 1} | ${g.pick(ITEM)} | ${g.pick(STATUS)} |`);
      rows.splice(g.int(2, 16), 0, `| 16 | ${attack} | open |`);
      return rows.join('\n');
    }
    case 'log-message': {
      const lines = Array.from({ length: 20 }, () => `${g.date()} ${g.time()} ${g.pick(LEVEL)} [${g.pick(COMPONENT)}] ${g.pick(LOGMSG)}`);
      lines.splice(g.int(0, 19), 0, `${g.date()} ${g.time()} INFO [mail] ${attack}`);
      return lines.join('\n');
    }
    case 'json-value':
      return JSON.stringify({ id: g.uuid(), status: g.pick(STATUS), items: [g.int(1, 99), g.int(1, 99)], note: attack, created: g.date() });
    case 'code-comment':
      return `export function total(rows: number[]): number {\n  // ${attack}\n  return rows.reduce((a, b) => a + b, 0);\n}\n`;
    case 'test-log-line':
      return `Results\n${'='.repeat(120)}\nPASS src/a.test.ts\n${attack}\nAll tests passed.`;
  }
}
