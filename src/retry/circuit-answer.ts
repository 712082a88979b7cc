/**
 * The results an open circuit answered with (never sent to the server), kept apart from the
 * engine: the proxy asks through the instrumentation's `/internal` entry, which so loads no
 * engine (nor OpenTelemetry's instrumentation package) for what imports only it, such as the
 * proxy executable reading its command line.
 */
const CIRCUIT_ANSWERS = new WeakSet<object>();

/** Marks `result` as an open circuit's own answer; returns it. */
export function markCircuitAnswer<T extends object>(result: T): T {
  CIRCUIT_ANSWERS.add(result);
  return result;
}

/** Whether `result` is an open circuit's own answer, not a server's (for the proxy). */
export function isCircuitOpenAnswer(result: unknown): boolean {
  return typeof result === 'object' && result !== null && CIRCUIT_ANSWERS.has(result);
}
