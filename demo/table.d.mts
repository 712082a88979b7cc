/** One logical call as the demo's agent reports it. */
export interface DemoRow {
  tool: string;
  class?: string;
  code?: string;
  attempts: number;
  outcome: string;
  action: string;
  agentGuidance?: string;
  correlationId?: string;
}

/** Splits text into lines of at most `width` characters, at spaces where it can. */
export function wrap(text: string, width: number): string[];

/** The table's lines, none longer than `width` (as long as the fixed columns fit). */
export function formatTable(
  rows: readonly DemoRow[],
  options?: { width?: number; serverSpan?: (row: DemoRow) => boolean },
): string[];
