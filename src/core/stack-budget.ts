/** Distinct (tool, exception type) keys a budget tracks; beyond them they share one bucket. */
const MAX_KEYS = 1024;
const OVERFLOW_KEY = '\u0000overflow';

interface Bucket {
  tokens: number;
  last: number;
}

/**
 * How many thrown errors' stack traces are formatted per second, per tool and exception type:
 * a token bucket each, holding at most one second's worth. Formatting a stack is the largest
 * single cost of a failure (V8 builds it on first read, several microseconds for ten frames);
 * in a failure storm, where one tool throws the same error thousands of times a second, the
 * first ones in each second carry the stack and the rest do not, so the instrumentation's cost
 * stays flat exactly when the server is struggling. `Infinity` formats every stack, `0` none.
 */
export class StackBudget {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    readonly perSecond: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** True when a stack may be formatted now for `tool` and `type`; spends one token. */
  take(tool: string | undefined, type: string): boolean {
    if (this.perSecond === Infinity) return true;
    if (!(this.perSecond > 0)) return false;
    const t = this.now();
    let key = `${tool ?? ''}\u0000${type}`;
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      if (this.buckets.size >= MAX_KEYS) {
        key = OVERFLOW_KEY;
        bucket = this.buckets.get(key);
      }
      if (bucket === undefined) {
        bucket = { tokens: this.perSecond, last: t };
        this.buckets.set(key, bucket);
      }
    }
    bucket.tokens = Math.min(
      this.perSecond,
      bucket.tokens + (Math.max(0, t - bucket.last) / 1000) * this.perSecond,
    );
    bucket.last = t;
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }
}
