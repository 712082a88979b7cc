/** Copies every bundled dependency of the checkout at `from` into `into`/node_modules; returns the names. */
export function copyBundled(into: string, from?: string): string[];

/** A copy of what the root package ships, with its bundled dependencies, in `into`; returns `into`. */
export function copyPackage(into: string, from?: string): string;
