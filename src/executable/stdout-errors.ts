/**
 * A failed write to stdout is an `'error'` event, which Node throws when nobody listens: a stack
 * trace and exit status 1 (which `mcp-failures` uses for "not found"). The CLIs listen: a closed
 * pipe (`| head`, a client that went away) ends the process quietly, as the reader chose to stop
 * reading; anything else (a full disk) is one line on stderr and `failedCode`.
 */
export function handleStdoutErrors(name: string, failedCode: number): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    process.stderr.write(`${name}: cannot write the output: ${error.code ?? error.message}\n`);
    process.exit(failedCode);
  });
}
