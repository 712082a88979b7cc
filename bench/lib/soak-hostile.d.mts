import type { SoakSample } from './soak-proxy.mjs';

export const HOSTILE_ARRAYS: number;

export function hostileBodies(options: {
  requests: number;
  every?: number;
  heapMiB?: number;
  node?: string;
  onSample?: (sample: SoakSample) => void;
}): Promise<{
  samples: Array<SoakSample & { served: number }>;
  elapsedMs: number;
  bodyBytes: number;
  peakRss: number;
  legitimate: { calls: number; failed: number; firstFailure: string | undefined };
}>;
