/** Copies the workspace packages the package in `dir` depends on into `into`/node_modules; returns their names. */
export function copyWorkspaceDependencies(into: string, dir?: string, root?: string): string[];

/** A copy of what the package in `from` ships, with the workspace packages it depends on, in `into`; returns `into`. */
export function copyPackage(into: string, from?: string, root?: string): string;
