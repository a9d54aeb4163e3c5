import { decodeCursor, encodeCursor, matches, type ScanFilter, type ScanPage, type ScanRecord, type ScanStore } from './record.js';

/**
 * Records in id order (ULIDs sort by time), newest last; bounded by count and age.
 * Ids from one process are monotonic, so appending keeps the order.
 */
export class MemoryScanStore implements ScanStore {
  readonly backend = 'memory' as const;
  private readonly records: ScanRecord[] = [];
  private readonly byId = new Map<string, ScanRecord>();

  constructor(private readonly limits: () => { maxScans: number; retentionDays: number }) {}

  async put(record: ScanRecord): Promise<void> {
    let i = this.records.length;
    while (i > 0 && this.records[i - 1]!.scan_id > record.scan_id) i--;
    this.records.splice(i, 0, record);
    this.byId.set(record.scan_id, record);
    this.enforceBounds();
  }

  async get(scanId: string): Promise<ScanRecord | null> {
    this.enforceBounds();
    return this.byId.get(scanId) ?? null;
  }

  async list(filter: ScanFilter, limit: number, cursor?: string): Promise<ScanPage> {
    this.enforceBounds();
    const before = cursor ? decodeCursor(cursor) : null;
    const data: ScanRecord[] = [];
    let more = false;
    for (let i = this.records.length - 1; i >= 0; i--) {
      const r = this.records[i]!;
      if (before && r.scan_id >= before) continue;
      if (!matches(r, filter)) continue;
      if (data.length === limit) {
        more = true;
        break;
      }
      data.push(r);
    }
    return { data, next_cursor: more ? encodeCursor(data[data.length - 1]!.scan_id) : null };
  }

  private enforceBounds(): void {
    const { maxScans, retentionDays } = this.limits();
    const cutoff = new Date(Date.now() - retentionDays * 86_400_000).toISOString();
    let drop = Math.max(0, this.records.length - maxScans);
    while (drop < this.records.length && this.records[drop]!.created_at < cutoff) drop++;
    for (const r of this.records.splice(0, drop)) this.byId.delete(r.scan_id);
  }
}
