// A Map that keeps only its most recently used entries, for caches of what
// can be had again (rows of the store, prepared statements, file headers):
// the capacity bounds memory, never results, since a caller reads or makes
// an evicted entry again.

export class RecentMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`a RecentMap holds at least one entry, not ${capacity}`);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value under `key`, which becomes the most recently used. */
  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      // A Map iterates in insertion order: re-inserting moves the key to the end, the oldest stays first.
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  /** Set `key` as the most recently used; the least recently used entry goes when the map is full. */
  set(key: K, value: V): this {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
    return this;
  }

  clear(): void {
    this.entries.clear();
  }
}
