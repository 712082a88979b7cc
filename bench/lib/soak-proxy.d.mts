/** One reading of a measured process, after GC: heap in use and resident set, in bytes. */
export interface SoakSample {
  calls: number;
  heap: number;
  rss: number;
}

export interface SoakGrowth {
  calls: number;
  heapBytesPerCall: number;
  heapRatio: number;
  rssRatio: number;
  maxHeapRatio: number;
  maxRssRatio: number;
  settledRssRatio: number;
}

export function soakProxy(options: {
  upstream?: 'stdio' | 'http';
  stateless?: boolean;
  calls: number;
  every: number;
  argBytes?: number;
  heapMiB?: number;
  concurrency?: number;
  renewEvery?: number;
  plantLeakBytes?: number;
  node?: string;
  onSample?: (sample: SoakSample) => void;
}): Promise<{ samples: SoakSample[]; elapsedMs: number }>;

export function growthOf(samples: SoakSample[]): SoakGrowth;

export function exitNote(
  out: { code: number | null; signal: string | null; stderr: string } | null,
): string;

export const SMALL_SOAK: Readonly<{
  calls: number;
  every: number;
  warmup: number;
  timeoutMs: number;
}>;
export const MAX_BYTES_PER_CALL: number;
export const MAX_RSS_RATIO: number;
export function afterWarmup(samples: SoakSample[]): SoakSample[];
export function describeRun(samples: SoakSample[]): string;
