/** A program the tests need beyond Node.js and npm, and the Debian package providing it. */
export interface SystemProgram {
  program: string;
  debianPackage: string;
}

/** What to do about missing programs: packages to install, and the one line to print. */
export interface SystemPackagesPlan {
  install: string[];
  line: string | undefined;
}

/** The programs the tests need beyond Node.js and npm, each with the Debian package providing it. */
export const SYSTEM_PROGRAMS: readonly SystemProgram[];

/** Decides what to do about the programs not found (pure: no I/O). */
export function planSystemPackages(state: {
  missing: readonly string[];
  root: boolean;
  aptGet: boolean;
}): SystemPackagesPlan;

/** Whether an executable file `program` is in one of the `PATH` directories. */
export function onPath(program: string, path?: string): boolean;

/** Installs what `planSystemPackages` decides, printing its line. */
export function installSystemPackages(log?: (line: string) => void): void;
