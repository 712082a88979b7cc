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
  formatFailureList,
  formatTraceLogs,
  jaegerSearchUrl,
  jaegerTagsOf,
  parseTimeOrDuration,
  queriesFromAlertNotification,
  searchFailures,
  type FailureHit,
  type FailureQuery,
  type LookupLogRecord,
  type LookupSpan,
} from '../lookup/index.js';
import { isHttpUrl } from './url.js';
import { firstLineOf } from '@omcp/tool-failure/wire';

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
       mcp-failures lookup [search options] (--jaeger-url URL | --file PATH) [options]

Finds the trace of a tool failure by its correlationId (the trace ID of the server span) and
prints the failure chain: client attempts, proxies, the server span, class, code, guidance,
durations and span events; with --file, also the log records of that trace (the package's
failure record and the application's own log lines), in time order.

Without a correlationId it searches: it lists the failing calls that match (time, service,
tool, class/code, correlationId, first line of the message), newest first.

Sources:
  --jaeger-url URL   Jaeger query service, e.g. http://localhost:16686 (GET /api/v3/traces/{id})
  --file PATH        OTLP/JSON: one {"resourceSpans":[...]} or {"resourceLogs":[...]} per line,
                     or one document; a failure whose trace was not sampled is found by its
                     log record (which carries the trace ID)

Search options (every one given must hold):
  --class CLASS      capability, reliability or governance
  --code CODE        the failure code, e.g. permission_denied
  --tool NAME        the tool (gen_ai.tool.name)
  --service NAME     the service (service.name; required with --jaeger-url)
  --since WHEN       a duration back from now (90s, 15m, 2h, 7d) or a time (ISO 8601)
  --until WHEN       the same; default now
  --alert FILE       an Alertmanager webhook notification (JSON): each alert's labels and
                     start time give the search; the options above override them
  --limit N          Jaeger traces to fetch per search (default 20)

Options:
  --service NAME     with a correlationId that is not a 32-hex trace ID: the Jaeger service to
                     search by the mcp.tool.failure.correlation_id tag
  --lookback HOURS   How far back a Jaeger search looks when --since is not given (default 48)
  --json             Print JSON instead of text
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
  /** Undefined for a search. */
  correlationId: string | undefined;
  /** The search given on the command line (merged over an alert's, when `alert` is given). */
  search: FailureQuery;
  alert: string | undefined;
  limit: number;
  jaegerUrl: string | undefined;
  file: string | undefined;
  service: string | undefined;
  lookbackHours: number;
  json: boolean;
}

function parseOptions(argv: readonly string[], now: number): Options | 'help' {
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
        class: { type: 'string' },
        code: { type: 'string' },
        tool: { type: 'string' },
        since: { type: 'string' },
        until: { type: 'string' },
        alert: { type: 'string' },
        limit: { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    throw usageError(firstLineOf(error));
  }
  const { values, positionals } = parsed;
  if (values.help === true) return 'help';
  const [command, correlationId, ...extra] = positionals;
  if (command === undefined) throw usageError('missing command: lookup');
  if (command !== 'lookup') throw usageError(`unknown command '${command}'`);
  if (extra.length > 0) throw usageError(`unexpected argument '${extra[0]}'`);
  const search = searchOf(values, now);
  const searching = Object.keys(search).some((k) => k !== 'service') || values.alert !== undefined;
  if (correlationId !== undefined && correlationId.trim() !== '' && searching)
    throw usageError('give a <correlationId> or search options, not both');
  if ((correlationId === undefined || correlationId.trim() === '') && !searching) {
    if (search.service === undefined)
      throw usageError(
        'missing <correlationId> or a search (--class, --code, --tool, --service, --since, --until, --alert)',
      );
  }
  const limit = values.limit === undefined ? 20 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw usageError(`--limit must be an integer from 1 to 1000, got '${values.limit}'`);
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
    correlationId: correlationId?.trim() === '' ? undefined : correlationId?.trim(),
    search,
    alert: values.alert,
    limit,
    jaegerUrl,
    file,
    service: values.service,
    lookbackHours,
    json: values.json === true,
  };
}

/** The search options of the command line; a time that cannot be read is a usage error. */
function searchOf(values: Record<string, unknown>, now: number): FailureQuery {
  const query: FailureQuery = {};
  for (const key of ['class', 'code', 'tool', 'service'] as const) {
    const value = values[key];
    if (typeof value === 'string') {
      if (value.trim() === '') throw usageError(`--${key} must not be empty`);
      query[key] = value.trim();
    }
  }
  if (
    query.class !== undefined &&
    !['capability', 'reliability', 'governance'].includes(query.class)
  )
    throw usageError(`--class must be capability, reliability or governance, got '${query.class}'`);
  for (const [key, field] of [
    ['since', 'sinceMs'],
    ['until', 'untilMs'],
  ] as const) {
    const value = values[key];
    if (typeof value !== 'string') continue;
    const ms = parseTimeOrDuration(value, now);
    if (ms === undefined)
      throw usageError(
        `--${key} must be a duration (90s, 15m, 2h, 7d) or a time (ISO 8601), got '${value}'`,
      );
    query[field] = ms;
  }
  return query;
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

async function spansFromJaeger(
  io: CliIo,
  options: Options,
  correlationId: string,
  base: string,
): Promise<LookupSpan[]> {
  const id = correlationId.toLowerCase();
  let traceIds: string[];
  if (isTraceId(id)) {
    traceIds = [id];
  } else {
    if (options.service === undefined) {
      throw usageError(
        `'${correlationId}' is not a 32-hex trace ID: give --service to search Jaeger by the mcp.tool.failure.correlation_id tag`,
      );
    }
    const url = jaegerTagSearchUrl(
      base,
      options.service,
      correlationId,
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

/** The log records of one trace, in time order. */
function logsOfTrace(logs: readonly LookupLogRecord[], traceId: string): LookupLogRecord[] {
  return logs
    .filter((r) => r.traceId === traceId)
    .sort((a, b) =>
      a.timeUnixNano < b.timeUnixNano ? -1 : a.timeUnixNano > b.timeUnixNano ? 1 : 0,
    );
}

/** The searches to run: the alert's (if any), each with the command line's options over it. */
async function queriesOf(io: CliIo, options: Options): Promise<FailureQuery[]> {
  if (options.alert === undefined) return [options.search];
  let payload: unknown;
  try {
    payload = JSON.parse(await io.readFile(options.alert));
  } catch (error) {
    throw new CliError(
      `cannot read the alert notification ${options.alert}: ${error instanceof SyntaxError ? 'not JSON' : describeError(error)}`,
    );
  }
  try {
    return queriesFromAlertNotification(payload).map((q) => ({ ...q, ...options.search }));
  } catch (error) {
    throw new CliError(`${options.alert}: ${(error as Error).message}`);
  }
}

/** The spans and logs a search reads: the file, or Jaeger's traces that match the search. */
async function searchSource(
  io: CliIo,
  options: Options,
  query: FailureQuery,
): Promise<{ spans: LookupSpan[]; logs: LookupLogRecord[] }> {
  if (options.file !== undefined) return signalsFromFile(io, options.file);
  if (query.service === undefined)
    throw usageError('a search with --jaeger-url needs --service (Jaeger searches one service)');
  const base = options.jaegerUrl ?? '';
  const now = io.now();
  const url = jaegerSearchUrl(
    base,
    query.service,
    jaegerTagsOf(query),
    query.sinceMs ?? now - options.lookbackHours * 3_600_000,
    query.untilMs ?? now,
    options.limit,
  );
  const spans: LookupSpan[] = [];
  for (const traceId of traceIdsFromTagSearch((await fetchJson(io, url)).body)) {
    const { status, body } = await fetchJson(io, jaegerTraceUrl(base, traceId));
    if (status !== 404) spans.push(...parseOtlpJson(JSON.stringify(body)));
  }
  return { spans, logs: [] };
}

/** `lookup` without a correlationId: the failing calls that match, per search. */
async function runSearch(io: CliIo, options: Options): Promise<number> {
  const results: Array<{ query: FailureQuery; failures: FailureHit[] }> = [];
  for (const query of await queriesOf(io, options)) {
    const { spans, logs } = await searchSource(io, options, query);
    results.push({ query, failures: searchFailures(spans, logs, query) });
  }
  io.stdout(
    options.json
      ? toJson(results)
      : results.map((r) => formatFailureList(r.failures, r.query)).join('\n'),
  );
  return results.some((r) => r.failures.length > 0) ? EXIT.found : EXIT.notFound;
}

/** Runs `mcp-failures` with the arguments after the program name; resolves with the exit code. */
export async function runMcpFailures(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const options = parseOptions(argv, io.now());
    if (options === 'help') {
      io.stdout(USAGE);
      return EXIT.found;
    }
    if (options.correlationId === undefined) return await runSearch(io, options);
    const correlationId = options.correlationId;
    const { spans, logs } =
      options.file !== undefined
        ? await signalsFromFile(io, options.file)
        : {
            spans: await spansFromJaeger(io, options, correlationId, options.jaegerUrl ?? ''),
            logs: [],
          };
    const traceIds = traceIdsForCorrelationId(spans, correlationId);
    if (traceIds.length === 0) {
      // A sampler may drop the trace while the failure's log record is kept: it carries the ID.
      const records = logRecordsForCorrelationId(logs, correlationId);
      if (records.length > 0) {
        io.stdout(
          options.json
            ? toJson([{ correlationId: correlationId, sampled: false, logRecords: records }])
            : formatUnsampledFailure(correlationId, records),
        );
        return EXIT.found;
      }
      const where = options.file ?? options.jaegerUrl ?? '';
      throw new CliError(
        `no trace found for correlationId ${correlationId} in ${where}`,
        EXIT.notFound,
      );
    }
    const chains = traceIds.map((traceId) => ({
      ...buildFailureChain(spans, traceId),
      logRecords: logsOfTrace(logs, traceId),
    }));
    io.stdout(
      options.json
        ? toJson(chains)
        : chains
            .map((c) => formatFailureChain(c) + formatTraceLogs(c.logRecords, spans))
            .join('\n'),
    );
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
