export type OtlpAnyValue = Record<string, unknown>;
export interface OtlpKeyValue {
  key: string;
  value: OtlpAnyValue;
}
export function varintSize(n: number | bigint): number;
export function anyValueSize(v: OtlpAnyValue): number;
export function keyValueSize(kv: OtlpKeyValue): number;
export function jsonElementSize(x: unknown): number;
