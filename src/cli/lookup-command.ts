/**
 * `mcp-failures lookup`: finds the trace of a tool failure's correlationId in Jaeger or in an
 * OTLP/JSON file and prints its failure chain. I/O comes in through `CliIo` so tests can run the
 * command in-process; `mcp-failures.ts` is the executable shell. Exit codes: 0 found, 1 not
 * found, 2 usage, input or connection error (always one line on stderr, never a stack trace).
 */
import { parseArgs } from 'node:util';
import {
  buildFailureChain,
  formatFailureChain,
  isTraceId,
  jaegerTagSearchUrl,
  jaegerTraceUrl,
  formatUnsampledFailure,
  logRecordsForCorrelationId,
  OtlpParseError,
  parseOtlpJson,
  parseOtlpJsonSignals,
  traceIdsForCorrelationId,
  traceIdsFromTagSearch,
  type LookupLogRecord,
  type LookupSpan,
} from '../lookup/index.js';
import { isHttpUrl } from './url.js';

/** The subset of a fetch `Response` the command reads. */
export interface CliResponse {
  status: number;
  json(): Promise<unknown>;
}

/** Everything the command does to the outside world. */
export interface CliIo {
  readFile(path: string): Promise<string>;
  fetch(url: string): Promise<CliResponse>;
  stdout(text: string): void;
  stderr(text: string): void;
  /** Epoch milliseconds. */
  now(): number;
}

/** Exit codes. */
export const EXIT = Object.freeze({ found: 0, notFound: 1, error: 2 });

export const USAGE = `Usage: mcp-failures lookup <correlationId> (--jaeger-url URL | --file PATH) [options]

Finds the trace of a tool failure by its correlationId (the trace ID of the server span) and
prints the failure chain: client attempts, proxies, the server span, class, code, guidance,
durations and span events.

Sources:
  --jaeger-url URL   Jaeger query service, e.g. http://localhost:16686 (GET /api/v3/traces/{id})
  --file PATH        OTLP/JSON: one {"resourceSpans":[...]} or {"resourceLogs":[...]} per line,
                     or one document; a failure whose trace was not sampled is found by its
                     log record (which carries the trace ID)

Options:
  --service NAME     Jaeger service to search by the mcp.tool.failure.correlation_id tag, needed
                     with --jaeger-url when the correlationId is not a 32-hex trace ID
  --lookback HOURS   How far back the Jaeger tag search looks (default 48)
  --json             Print the chain as JSON instead of text
  -h, --help         Show this help

Exit status: 0 found, 1 not found, 2 usage, input or connection error.
`;

/** A mistake of the user or of the environment, reported in one line. */
class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.error,
    readonly usage = false,
  ) {
    super(message);
  }
}

/** A mistake in the command line. */
function usageError(message: string): CliError {
  return new CliError(message, EXIT.error, true);
}

interface Options {
  correlationId: string;
  jaegerUrl: string | undefined;
  file: string | undefined;
  service: string | undefined;
  lookbackHours: number;
  json: boolean;
}

function parseOptions(argv: readonly string[]): Options | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        'jaeger-url': { type: 'string' },
        file: { type: 'string' },
        service: { type: 'string' },
        lookback: { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    throw usageError(error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help === true) return 'help';
  const [command, correlationId, ...extra] = positionals;
  if (command === undefined) throw usageError('missing command: lookup');
  if (command !== 'lookup') throw usageError(`unknown command '${command}'`);
  if (correlationId === undefined || correlationId.trim() === '') {
    throw usageError('missing <correlationId>');
  }
  if (extra.length > 0) throw usageError(`unexpected argument '${extra[0]}'`);
  const jaegerUrl = values['jaeger-url'];
  const file = values.file;
  if ((jaegerUrl === undefined) === (file === undefined)) {
    throw usageError('give exactly one of --jaeger-url or --file');
  }
  if (jaegerUrl !== undefined && !isHttpUrl(jaegerUrl)) {
    throw usageError(`--jaeger-url must be an http(s) URL, got '${redacted(jaegerUrl)}'`);
  }
  const lookbackHours = values.lookback === undefined ? 48 : Number(values.lookback);
  if (!Number.isFinite(lookbackHours) || lookbackHours <= 0 || lookbackHours > MAX_LOOKBACK_HOURS) {
    throw usageError(
      `--lookback must be a number of hours above 0 and up to ${MAX_LOOKBACK_HOURS}, got '${values.lookback}'`,
    );
  }
  return {
    correlationId: correlationId.trim(),
    jaegerUrl,
    file,
    service: values.service,
    lookbackHours,
    json: values.json === true,
  };
}

/** Ten years: beyond it the search's start time stops being a date Jaeger can take. */
const MAX_LOOKBACK_HOURS = 24 * 366 * 10;

/** A URL as messages show it: credentials in it are not repeated on the terminal. */
function redacted(text: string): string {
  try {
    const url = new URL(text);
    if (url.username === '' && url.password === '') return text;
    url.username = '***';
    url.password = '';
    return url.href;
  } catch {
    return text.replace(/\/\/[^/@]*@/, '//***@');
  }
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as Error & { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as Error & { code?: unknown }).code;
    return typeof code === 'string' ? `${code} (${cause.message})` : cause.message;
  }
  if (isTimeout(error)) return 'timed out';
  return error.message;
}

/** The request's time ran out (the fetch signal's timeout covers headers and body). */
function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
}

async function fetchJson(io: CliIo, url: string): Promise<{ status: number; body: unknown }> {
  let response: CliResponse;
  try {
    response = await io.fetch(url);
  } catch (error) {
    throw new CliError(`cannot reach Jaeger at ${new URL(url).origin}: ${describeError(error)}`);
  }
  if (response.status === 404) return { status: 404, body: undefined };
  if (response.status < 200 || response.status >= 300) {
    throw new CliError(`Jaeger answered HTTP ${response.status} for ${redacted(url)}`);
  }
  try {
    return { status: response.status, body: await response.json() };
  } catch (error) {
    // The request timeout also covers the body: a body that stalls is not "not JSON".
    if (isTimeout(error)) throw new CliError(`Jaeger at ${new URL(url).origin} timed out`);
    throw new CliError(`Jaeger answered ${redacted(url)} with something that is not JSON`);
  }
}

async function spansFromJaeger(io: CliIo, options: Options, base: string): Promise<LookupSpan[]> {
  const id = options.correlationId.toLowerCase();
  let traceIds: string[];
  if (isTraceId(id)) {
    traceIds = [id];
  } else {
    if (options.service === undefined) {
      throw usageError(
        `'${options.correlationId}' is not a 32-hex trace ID: give --service to search Jaeger by the mcp.tool.failure.correlation_id tag`,
      );
    }
    const url = jaegerTagSearchUrl(
      base,
      options.service,
      options.correlationId,
      io.now(),
      options.lookbackHours * 3_600_000,
    );
    const { body } = await fetchJson(io, url);
    traceIds = traceIdsFromTagSearch(body);
  }
  const spans: LookupSpan[] = [];
  for (const traceId of traceIds) {
    const url = jaegerTraceUrl(base, traceId);
    const { status, body } = await fetchJson(io, url);
    if (status === 404) continue;
    spans.push(...parseOtlpJson(JSON.stringify(body)));
  }
  return spans;
}

async function signalsFromFile(
  io: CliIo,
  file: string,
): Promise<{ spans: LookupSpan[]; logs: LookupLogRecord[] }> {
  let text: string;
  try {
    text = await io.readFile(file);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const reason =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'is a directory'
          : describeError(error);
    throw new CliError(`cannot read ${file}: ${reason}`);
  }
  try {
    return parseOtlpJsonSignals(text);
  } catch (error) {
    if (error instanceof OtlpParseError) throw new CliError(`${file}: ${error.message}`);
    throw error;
  }
}

function toJson(value: unknown): string {
  return `${JSON.stringify(
    value,
    (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value),
    2,
  )}\n`;
}

/** Runs `mcp-failures` with the arguments after the program name; resolves with the exit code. */
export async function runMcpFailures(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const options = parseOptions(argv);
    if (options === 'help') {
      io.stdout(USAGE);
      return EXIT.found;
    }
    const { spans, logs } =
      options.file !== undefined
        ? await signalsFromFile(io, options.file)
        : { spans: await spansFromJaeger(io, options, options.jaegerUrl ?? ''), logs: [] };
    const traceIds = traceIdsForCorrelationId(spans, options.correlationId);
    if (traceIds.length === 0) {
      // A sampler may drop the trace while the failure's log record is kept: it carries the ID.
      const records = logRecordsForCorrelationId(logs, options.correlationId);
      if (records.length > 0) {
        io.stdout(
          options.json
            ? toJson([
                { correlationId: options.correlationId, sampled: false, logRecords: records },
              ])
            : formatUnsampledFailure(options.correlationId, records),
        );
        return EXIT.found;
      }
      const where = options.file ?? options.jaegerUrl ?? '';
      throw new CliError(
        `no trace found for correlationId ${options.correlationId} in ${where}`,
        EXIT.notFound,
      );
    }
    const chains = traceIds.map((traceId) => buildFailureChain(spans, traceId));
    io.stdout(options.json ? toJson(chains) : chains.map(formatFailureChain).join('\n'));
    return EXIT.found;
  } catch (error) {
    if (error instanceof CliError) {
      const hint = error.usage ? ' (mcp-failures --help for usage)' : '';
      io.stderr(`mcp-failures: ${error.message}${hint}\n`);
      return error.exitCode;
    }
    io.stderr(`mcp-failures: unexpected error: ${describeError(error)}\n`);
    return EXIT.error;
  }
}
