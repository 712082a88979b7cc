/**
 * Whether `version` is inside `range`, for the closed ranges this package writes (`>=1.10.2 <2`):
 * space-separated comparators (`>=`, `>`, `<=`, `<`, `=`) of one to three numbers, all of which
 * must hold. A prerelease is outside every range, as semver treats it without `includePrerelease`.
 * Used where no module hook checks the version (the register entry on Bun and Deno).
 */
export function inRange(version: string, range: string): boolean {
  const at = parse(version);
  if (at === undefined || /-/.test(version)) return false;
  return range
    .trim()
    .split(/\s+/)
    .every((comparator) => {
      const match = /^(>=|<=|>|<|=)?(.+)$/.exec(comparator);
      const bound = match === null ? undefined : parse(match[2]!);
      if (bound === undefined) return false;
      const order = compare(at, bound);
      switch (match![1]) {
        case '>=':
          return order >= 0;
        case '>':
          return order > 0;
        case '<=':
          return order <= 0;
        case '<':
          return order < 0;
        default:
          return order === 0;
      }
    });
}

/** `major.minor.patch` (missing parts are 0; build metadata and a prerelease tag ignored). */
function parse(version: string): [number, number, number] | undefined {
  const match = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:[-+].*)?$/.exec(version.trim());
  if (match === null) return undefined;
  return [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)];
}

function compare(a: [number, number, number], b: [number, number, number]): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}
