import type { SoakSample } from './soak-proxy.mjs';

export function soakRetryClient(options: {
  calls: number;
  every: number;
  argBytes?: number;
  heapMiB?: number;
  concurrency?: number;
  plantLeakBytes?: number;
  node?: string;
  onSample?: (sample: SoakSample) => void;
}): Promise<{ samples: SoakSample[]; elapsedMs: number; retried: number }>;
