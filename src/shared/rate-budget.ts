/** Distinct (tool, kind, detail) keys a budget tracks; beyond them they share one bucket. */
const MAX_KEYS = 1024;

interface Bucket {
  tokens: number;
  last: number;
  /** Takes refused since the last one granted. */
  refused: number;
}

/**
 * How many times per second, per tool, kind and detail, something costly may be done: a token
 * bucket each, holding at most one second's worth. The server uses two: for formatting a thrown
 * error's stack (kind: the exception type) and for emitting a failure log record (kind: the
 * failure code, detail: the exception type). In a failure storm, where one tool fails the same way
 * thousands of times a second, a burst of `perSecond` gets the full detail and then one every
 * `1/perSecond` seconds, so the instrumentation's cost and the log volume stay flat exactly when
 * the server is struggling. `Infinity` grants every take, `0` none.
 */
export class RateBudget {
  /** Tool, then kind, then detail: keys the caller already holds, no key string built per take. */
  private readonly buckets = new Map<string | undefined, Map<string, Map<string, Bucket>>>();
  private count = 0;
  private overflow: Bucket | undefined;

  constructor(
    readonly perSecond: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * Spends one token of `tool`, `kind` and `detail` if there is one. Returns -1 when there is
   * none, else how many takes of the same key were refused since the previous granted one (0
   * mostly).
   */
  take(tool: string | undefined, kind: string, detail = ''): number {
    if (this.perSecond === Infinity) return 0;
    if (!(this.perSecond > 0)) return -1;
    const t = this.now();
    const bucket = this.bucketOf(tool, kind, detail, t);
    bucket.tokens = Math.min(
      this.perSecond,
      bucket.tokens + (Math.max(0, t - bucket.last) / 1000) * this.perSecond,
    );
    bucket.last = t;
    if (bucket.tokens < 1) {
      bucket.refused++;
      return -1;
    }
    bucket.tokens -= 1;
    const refused = bucket.refused;
    bucket.refused = 0;
    return refused;
  }

  private bucketOf(tool: string | undefined, kind: string, detail: string, t: number): Bucket {
    let byKind = this.buckets.get(tool);
    let byDetail = byKind?.get(kind);
    const bucket = byDetail?.get(detail);
    if (bucket !== undefined) return bucket;
    const fresh: Bucket = { tokens: this.perSecond, last: t, refused: 0 };
    if (this.count >= MAX_KEYS) return (this.overflow ??= fresh);
    this.count++;
    if (byKind === undefined) this.buckets.set(tool, (byKind = new Map()));
    if (byDetail === undefined) byKind.set(kind, (byDetail = new Map()));
    byDetail.set(detail, fresh);
    return fresh;
  }
}
