import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toolFailure } from '../../packages/tool-failure/src/index.js';

/**
 * The answers of an idempotent tool that fails transiently (reliability,
 * retryable_transient_error) on its first two calls, then succeeds; `calls()` counts them.
 */
export function flakyTwice(): { answer: () => CallToolResult; calls: () => number } {
  let n = 0;
  return {
    answer: () => {
      n += 1;
      return n < 3
        ? (toolFailure({
            class: 'reliability',
            code: 'retryable_transient_error',
            retryable: true,
          }) as CallToolResult)
        : { content: [{ type: 'text', text: 'ok' }] };
    },
    calls: () => n,
  };
}
