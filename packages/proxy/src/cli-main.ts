/**
 * The `mcp-failure-proxy` executable's work, loaded by `cli.ts`: a thin shell over `parseProxyArgs` and
 * `runFailureProxy`. With OTEL_* exporter settings it starts this package's telemetry first,
 * then loads the MCP SDK, so the proxy's own spans join the caller's trace.
 */
import { PROXY_EXIT, PROXY_USAGE, ProxyUsageError, parseProxyArgs } from './args.js';
import { handleStdoutErrors } from '@omcp/instrumentation-mcp/executable';

const INSTRUMENTATION = '@omcp/instrumentation-mcp';
const REGISTER_ENTRY = `${INSTRUMENTATION}/register`;

function wantsTelemetry(env: NodeJS.ProcessEnv): boolean {
  const exporter = env.OTEL_TRACES_EXPORTER;
  if (exporter !== undefined && exporter !== '' && exporter !== 'none') return true;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

async function startTelemetryIfConfigured(): Promise<void> {
  if (!wantsTelemetry(process.env)) return;
  if (process.execArgv.some((a) => a.includes(REGISTER_ENTRY))) return;
  try {
    // The zero-code entry, as `--import` would load it: its loader hook and SDK are the
    // instrumentation's dependencies, resolved from where the instrumentation is installed.
    await import(REGISTER_ENTRY);
  } catch (error) {
    process.stderr.write(
      `mcp-failure-proxy: telemetry not started: ${error instanceof Error ? error.message : String(error)}\n`,
    );
  }
}

async function main(argv: string[]): Promise<number> {
  let options;
  try {
    options = parseProxyArgs(argv);
  } catch (error) {
    if (!(error instanceof ProxyUsageError)) throw error;
    process.stderr.write(`mcp-failure-proxy: ${error.message} (see --help)\n`);
    return PROXY_EXIT.usage;
  }
  if (options === 'help') {
    process.stdout.write(PROXY_USAGE);
    return PROXY_EXIT.ok;
  }
  await startTelemetryIfConfigured();
  const { runFailureProxy } = await import('./run.js');
  return runFailureProxy(options, {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    onShutdown(stop) {
      for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, stop);
    },
  });
}

/** The executable's work: parses `argv`, runs the proxy and resolves to the exit status. */
export function runProxyExecutable(argv: string[]): Promise<number> {
  handleStdoutErrors('mcp-failure-proxy', PROXY_EXIT.failed);
  return main(argv);
}
