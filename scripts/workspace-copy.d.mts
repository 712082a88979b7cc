/** Copies the workspace packages the root depends on into `into`/node_modules; returns their names. */
export function copyWorkspaceDependencies(into: string, from?: string): string[];

/** A copy of what the root package ships, with the workspace packages it depends on, in `into`; returns `into`. */
export function copyPackage(into: string, from?: string): string;
