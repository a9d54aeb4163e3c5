import type { Redis } from 'ioredis';
import { compileFilter, decodeCursor, encodeCursor, type ScanFilter, type ScanPage, type ScanRecord, type ScanStore } from './record.js';

const PAGE_SCAN = 200;
const MAX_EXAMINED = 20_000;

/**
 * Layout: `<p>scans:rec:<id>` the record JSON with a TTL of retention_days;
 * `<p>scans:idx` and `<p>scans:by-caller:<caller>` sorted sets of ids, all scored 0 so they
 * order by member: ULID ids sort by time, so reverse-lex order is newest first and the
 * retention cut is a lex range. Count bound: ZREMRANGEBYRANK keeps the newest max_scans.
 */
export class RedisScanStore implements ScanStore {
  readonly backend = 'redis' as const;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly limits: () => { maxScans: number; retentionDays: number },
  ) {}

  private key(...parts: string[]): string {
    return `${this.prefix}scans:${parts.join(':')}`;
  }

  async put(record: ScanRecord): Promise<void> {
    const { maxScans, retentionDays } = this.limits();
    const ttl = Math.max(1, Math.ceil(retentionDays * 86_400));
    const tx = this.redis.multi().set(this.key('rec', record.scan_id), JSON.stringify(record), 'EX', ttl).zadd(this.key('idx'), 0, record.scan_id).zremrangebyrank(this.key('idx'), 0, -(maxScans + 1));
    if (record.caller) tx.zadd(this.key('by-caller', record.caller), 0, record.scan_id).zremrangebyrank(this.key('by-caller', record.caller), 0, -(maxScans + 1)).expire(this.key('by-caller', record.caller), ttl);
    await tx.exec();
  }

  async get(scanId: string): Promise<ScanRecord | null> {
    const raw = await this.redis.get(this.key('rec', scanId));
    return raw ? (JSON.parse(raw) as ScanRecord) : null;
  }

  async list(filter: ScanFilter, limit: number, cursor?: string): Promise<ScanPage> {
    const index = filter.caller ? this.key('by-caller', filter.caller) : this.key('idx');
    let upper = cursor ? `(${decodeCursor(cursor) ?? ''}` : '+';
    if (upper === '(') upper = '+';
    // Ids older than `since` cannot match; stop the walk there.
    const floor = filter.since ? `[scn_${ulidFloor(Date.parse(filter.since))}` : '-';
    const match = compileFilter(filter);
    const data: ScanRecord[] = [];
    let examined = 0;
    let exhausted = false;
    while (data.length < limit && examined < MAX_EXAMINED) {
      const ids = await this.redis.zrevrangebylex(index, upper, floor, 'LIMIT', 0, PAGE_SCAN);
      if (!ids.length) {
        exhausted = true;
        break;
      }
      examined += ids.length;
      const raws = await this.redis.mget(ids.map((id) => this.key('rec', id)));
      for (let i = 0; i < ids.length && data.length < limit; i++) {
        upper = `(${ids[i]!}`;
        const raw = raws[i];
        if (!raw) continue; // expired record still indexed: skipped (the index is trimmed on writes)
        const record = JSON.parse(raw) as ScanRecord;
        if (match.fields(record) && match.threats(record)) data.push(record);
      }
      if (ids.length < PAGE_SCAN && data.length < limit) {
        exhausted = true;
        break;
      }
    }
    const last = data[data.length - 1];
    return { data, next_cursor: !exhausted && last ? encodeCursor(last.scan_id) : null };
  }
}

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
/** The smallest ULID of a given millisecond, lower-case like our ids. */
export function ulidFloor(ms: number): string {
  let t = Math.max(0, Math.floor(ms));
  let time = '';
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32]! + time;
    t = Math.floor(t / 32);
  }
  return time + '0'.repeat(16);
}
