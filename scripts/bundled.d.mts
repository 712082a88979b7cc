/** Copies every bundled dependency of the checkout at `from` into `into`/node_modules; returns the names. */
export function copyBundled(into: string, from?: string): string[];
