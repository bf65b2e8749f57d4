/**
 * The one bounded in-process cache of the service: at most `maxEntries` entries, the least
 * recently used out first, and optionally an age limit. Callers pass the time (`nowMs`), so the
 * cache reads no clock itself. Every cache of the service holds only what can be had again: a guess
 * that its user checks against the database, or a value made from its key alone (a date or money
 * format), so losing an entry never changes an answer.
 */
export class BoundedCache<K, V> {
  private readonly entries = new Map<K, { value: V; expiresAtMs: number }>();

  constructor(
    private readonly maxEntries: number,
    /** Age limit of an entry; Infinity: none. */
    private readonly ttlMs = Number.POSITIVE_INFINITY,
  ) {
    if (!(maxEntries >= 1)) throw new Error('a bounded cache holds at least one entry');
  }

  get size(): number {
    return this.entries.size;
  }

  /** The entry, which becomes the most recently used; undefined when absent or too old. */
  get(key: K, nowMs = 0): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    if (entry.expiresAtMs <= nowMs) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: K, value: V, nowMs = 0): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAtMs: nowMs + this.ttlMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.entries.delete(oldest.value);
    }
  }

  /**
   * The entry, or the value `make` builds for the key, which is kept. When `make` throws, nothing
   * is kept and the error goes to the caller.
   */
  getOrSet(key: K, make: () => V, nowMs = 0): V {
    const found = this.get(key, nowMs);
    if (found !== undefined) return found;
    const value = make();
    this.set(key, value, nowMs);
    return value;
  }

  delete(key: K): void {
    this.entries.delete(key);
  }
}
