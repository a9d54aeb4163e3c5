/**
 * A bounded cache keyed by three values, for names built from (provider, model, key) on every
 * proxied request. Nested maps rather than a joined string key, so a hit allocates nothing;
 * forgotten wholesale once it holds `max` entries.
 */
export class Memo3<A, B, C, V> {
  private readonly map = new Map<A, Map<B, Map<C, V>>>();
  private count = 0;

  /** `make` is called on a miss; pass a function defined once, not a closure per call. */
  constructor(
    private readonly max: number,
    private readonly make: (a: A, b: B, c: C) => V,
  ) {}

  get(a: A, b: B, c: C): V {
    let byB = this.map.get(a);
    if (byB === undefined) this.map.set(a, (byB = new Map()));
    let byC = byB.get(b);
    if (byC === undefined) byB.set(b, (byC = new Map()));
    let v = byC.get(c);
    if (v === undefined) {
      if (this.count >= this.max) {
        this.map.clear();
        this.count = 0;
        return this.get(a, b, c);
      }
      v = this.make(a, b, c);
      byC.set(c, v);
      this.count++;
    }
    return v;
  }
}
