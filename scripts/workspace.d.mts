/** A package of the workspace: the root, then each folder of its `workspaces`. */
export interface WorkspacePackage {
  /** Its folder, relative to the root (`.`, `packages/tool-failure`). */
  dir: string;
  /** Its name in package.json. */
  name: string;
  /** Its source folder, relative to the root, ending in `/` (`packages/proxy/src/`). */
  sources: string[];
}

/** The repository's root folder. */
export const ROOT: string;

/** The package.json of the package in `dir`. */
export function manifestOf(dir: string): Record<string, unknown>;

/** The packages of the workspace under `root`, the root first. */
export function workspacePackages(root?: string): WorkspacePackage[];

/** The workspace packages the package in `dir` depends on, transitively, each once (`dir` absolute). */
export function workspaceDependencies(
  dir?: string,
  root?: string,
): Array<{ name: string; dir: string }>;

/** The package whose own sources hold `file` (relative to the root), if any. */
export function homeOf(packages: WorkspacePackage[], file: string): WorkspacePackage | undefined;

/** The absolute path of executable `bin` as the workspace package that declares it has it. */
export function binPath(bin: string, root?: string): string;
