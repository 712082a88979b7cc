import { createContextKey, type Context } from '@opentelemetry/api';

const ATTEMPT_KEY = createContextKey('omcp.mcp.tool.call.attempt');

/** Marks `ctx` as running attempt `attempt` (1-based) of a logical tool call. */
export function withAttempt(ctx: Context, attempt: number): Context {
  return ctx.setValue(ATTEMPT_KEY, attempt);
}

/** The attempt number set by the retry policy in `ctx`, if any. */
export function attemptOf(ctx: Context): number | undefined {
  const value = ctx.getValue(ATTEMPT_KEY);
  return typeof value === 'number' ? value : undefined;
}
