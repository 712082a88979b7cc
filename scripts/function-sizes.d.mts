/** A function of the scanned sources and the lines it spans. */
export interface LongFunction {
  lines: number;
  file: string;
  /** Its first line, 1-based. */
  line: number;
  /** Its own name, or the variable or property it is assigned to, or `<anonymous>`. */
  name: string;
}

/** The functions in the TypeScript sources under `dirs` spanning at least `limit` lines. */
export function longFunctions(dirs: string[], limit: number): LongFunction[];
