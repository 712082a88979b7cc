import { diag, DiagLogLevel } from '@opentelemetry/api';

/** Sets the global diag logger at WARN; each warning's arguments, joined, go into the array returned. */
export function collectDiagWarnings(): string[] {
  const warned: string[] = [];
  diag.setLogger(
    {
      error: () => {},
      warn: (...args: unknown[]) => warned.push(args.join(' ')),
      info: () => {},
      debug: () => {},
      verbose: () => {},
    },
    DiagLogLevel.WARN,
  );
  return warned;
}
