/**
 * What the batch processors hold that the collector has not confirmed yet: items waiting in a
 * batch and items in an export whose answer has not come. When the process exits before the
 * flush ends, this is what still has to be sent (`take`). Bounded like the batch queue it
 * mirrors: once `capacity` items wait, new ones are not recorded (the batch processor drops
 * them too).
 */
export class ExitLedger<T> {
  private readonly waiting = new Set<T>();
  private readonly inFlight = new Set<T>();

  constructor(private readonly capacity: number) {}

  /** An item entered the batch queue. */
  record(item: T): void {
    if (this.waiting.size < this.capacity) this.waiting.add(item);
  }

  /** A batch was handed to the exporter. */
  exporting(items: readonly T[]): void {
    for (const item of items) {
      // Only items this ledger recorded: a batch may carry what arrived past its capacity.
      if (this.waiting.delete(item)) this.inFlight.add(item);
    }
  }

  /** The exporter answered for a batch, success or not: the processor is done with it. */
  settled(items: readonly T[]): void {
    for (const item of items) this.inFlight.delete(item);
  }

  /** How many items are not confirmed. */
  get size(): number {
    return this.waiting.size + this.inFlight.size;
  }

  /**
   * Every item not confirmed, those already sent first (they are the older ones), and empties
   * the ledger. `sent` are items of a request handed to the operating system in full, which the
   * collector gets even if the process ends now: they are left out, so nothing arrives twice.
   * An export whose request was not handed over in full cannot have reached the collector.
   */
  take(sent: readonly T[] = []): T[] {
    const handedOver = new Set(sent);
    const items = [...this.inFlight, ...this.waiting].filter((item) => !handedOver.has(item));
    this.inFlight.clear();
    this.waiting.clear();
    return items;
  }
}
