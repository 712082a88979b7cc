export interface TailSamplingPolicy {
  name: string;
  type: string;
  [settings: string]: unknown;
}
export function shippedPolicies(file?: string): TailSamplingPolicy[];
export function fnv1a64(bytes: Iterable<number>): bigint;
export function probabilisticKeeps(traceId: string, percentage: number, salt?: string): boolean;
export function decide(
  traceId: string,
  spans: Array<{ status: number; attributes: Record<string, unknown> }>,
  policies?: TailSamplingPolicy[],
): { kept: boolean; chance: number; hashed: boolean; matched: string[] };
export function sampleTraces(
  spans: Array<{ traceId: string; status: number; attributes: Record<string, unknown> }>,
  policies?: TailSamplingPolicy[],
): {
  traces: number;
  keptByPolicy: number;
  keptByHash: number;
  expectedShare: number;
  matched: string[];
};
