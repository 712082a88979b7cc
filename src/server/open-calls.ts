/** Open calls a transport may hold in a plain list before switching to a map. */
const LIST_LIMIT = 64;

/**
 * The open calls of one transport by JSON-RPC id. A short list while few are open (the usual
 * case): a long-lived `Map` that goes from one entry to none on every request reallocates its
 * table each time, several hundred nanoseconds per request, where scanning a handful of ids
 * costs a few. Beyond `LIST_LIMIT` open calls it becomes a map, so lookups stay O(1) under load.
 */
export class OpenCalls<T> {
  private ids: unknown[] = [];
  private items: T[] = [];
  private map: Map<unknown, T> | undefined;

  get(id: unknown): T | undefined {
    if (this.map !== undefined) return this.map.get(id);
    const i = this.ids.indexOf(id);
    return i < 0 ? undefined : this.items[i];
  }

  set(id: unknown, item: T): void {
    if (this.map !== undefined) {
      this.map.set(id, item);
      return;
    }
    const i = this.ids.indexOf(id);
    if (i >= 0) {
      this.items[i] = item;
    } else if (this.ids.length < LIST_LIMIT) {
      this.ids.push(id);
      this.items.push(item);
    } else {
      this.map = new Map(this.ids.map((k, j) => [k, this.items[j] as T]));
      this.map.set(id, item);
      this.ids = [];
      this.items = [];
    }
  }

  delete(id: unknown): void {
    if (this.map !== undefined) {
      this.map.delete(id);
      return;
    }
    const i = this.ids.indexOf(id);
    if (i < 0) return;
    const last = this.ids.length - 1;
    this.ids[i] = this.ids[last];
    this.items[i] = this.items[last] as T;
    this.ids.pop();
    this.items.pop();
  }

  values(): T[] {
    return this.map !== undefined ? [...this.map.values()] : [...this.items];
  }

  get size(): number {
    return this.map !== undefined ? this.map.size : this.ids.length;
  }

  clear(): void {
    this.map = undefined;
    this.ids = [];
    this.items = [];
  }
}
