import type { ToolFailureClass } from './types.js';

/** The `_meta` key of the tool-failure extension. */
export const TOOL_FAILURE_META_KEY = 'io.modelcontextprotocol/toolFailure';

/** The closed set of classes, in the proposal's order. */
export const TOOL_FAILURE_CLASSES: readonly ToolFailureClass[] = Object.freeze([
  'capability',
  'reliability',
  'governance',
]);

/** The proposal's RECOMMENDED baseline codes, by class. */
export const BASELINE_CODES: Readonly<Record<ToolFailureClass, readonly string[]>> = Object.freeze({
  capability: Object.freeze(['capability_unsupported', 'resource_not_found', 'invalid_input']),
  reliability: Object.freeze(['retryable_transient_error']),
  governance: Object.freeze([
    'auth_required',
    'permission_denied',
    'policy_blocked',
    'user_action_required',
  ]),
});

/**
 * Codes this package itself emits for thrown errors that fit no baseline code
 * (see `classifyError`). They are open codes in the proposal's sense.
 */
export const PACKAGE_CODES: Readonly<Record<string, ToolFailureClass>> = Object.freeze({
  internal_error: 'reliability',
  timeout: 'reliability',
  cancelled: 'reliability',
  upstream_unavailable: 'reliability',
  malformed_response: 'reliability',
  resource_exhausted: 'reliability',
  /** The caller's circuit breaker for the tool is open: the call was not sent. */
  circuit_open: 'reliability',
});

const baselineClassOf = new Map<string, ToolFailureClass>();
for (const cls of TOOL_FAILURE_CLASSES) {
  for (const code of BASELINE_CODES[cls]) baselineClassOf.set(code, cls);
}

/** The class a baseline code belongs to, or `undefined` for an open code. */
export function baselineClassOfCode(code: string): ToolFailureClass | undefined {
  return baselineClassOf.get(code);
}

/** True for the three classes of the proposal. */
export function isToolFailureClass(value: unknown): value is ToolFailureClass {
  return value === 'capability' || value === 'reliability' || value === 'governance';
}
