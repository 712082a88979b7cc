/**
 * `mcp-failures check proxy [options] -- PROXY_COMMAND [ARGS...]`: puts a scripted upstream
 * (src/check/scripted.ts, the cases of conformance/intermediary-cases.json and a few more) behind
 * the intermediary under test, calls every case through it as a raw JSON-RPC client, and judges
 * what arrived (`checkProxyOutcomes`, pure): every result's `_meta` unchanged, no failure object
 * added or rewritten, one upstream call per client call, an own failure when the upstream's
 * answer is not a CallToolResult. Exit codes: 0 pass, 1 a rule failed, 2 usage error, or the
 * intermediary could not be started or reached (one line on stderr).
 *
 * How the intermediary finds the upstream: an argument `{upstream}` becomes the scripted
 * upstream's command line (--upstream stdio, several words) or its URL (--upstream http); the
 * same is in MCP_CHECK_UPSTREAM_COMMAND (JSON array) or MCP_CHECK_UPSTREAM_URL. How the checker
 * reaches the intermediary: its stdin/stdout (--downstream stdio), or --proxy-url (--downstream
 * http), where `{port}`, as in ARGS, is a free loopback port the checker chose.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatRuleTable } from '../check/rule-table.js';
import { checkProxyOutcomes, type ProxyOutcome } from '../check/proxy.js';
import {
  createScriptedHandler,
  proxyScript,
  type ProxyCase,
  type ScriptedCall,
} from '../check/scripted.js';
import { MODERN_REVISION, isRecord, firstLineOf } from '@omcp/tool-failure/wire';
import { KIT_PACKAGE_VERSION } from '../check/version.js';
import { ChildStartError, startChild, substitute, type StartedChild } from './check-client-run.js';
import { loadProxyCases, readCallLog } from './check-client-serve.js';
import { startLoopbackHttp } from './wire-server.js';
import { httpWire, stdioWire, type WireSession } from './wire-client.js';
import {
  CheckUsageError as UsageError,
  runCheckCommand,
  stringOption,
  endCheck,
  programUnderTest,
  type ProgramUnderTest,
  type CheckArgs,
  type CheckCommand,
} from './check-common.js';

/** What the command needs from the outside world besides child processes and sockets. */
export interface CheckProxyIo {
  /** The command line that runs `mcp-failures` itself (node and the script). */
  self: readonly string[];
  /** Path of conformance/intermediary-cases.json. */
  vectors: string;
  writeFile(path: string, text: string): Promise<void>;
  stdout(text: string): void;
  stderr(text: string): void;
}

/** The environment variables an intermediary under test may read. */
export const PROXY_ENV = Object.freeze({
  upstreamCommand: 'MCP_CHECK_UPSTREAM_COMMAND',
  upstreamUrl: 'MCP_CHECK_UPSTREAM_URL',
});

export const CHECK_PROXY_USAGE = `Usage: mcp-failures check proxy [options] -- PROXY_COMMAND [ARGS...]

Starts the intermediary under test in front of a scripted upstream whose results carry assorted
_meta (valid and invalid failure objects, unknown keys, nested values, Unicode; the cases of
conformance/intermediary-cases.json), calls every case through it and checks that each result
arrives unchanged (its _meta serialised identically), that nothing is added, rewritten or
retried, and that a non-result upstream answer becomes a failure object of the intermediary's own.

Where the upstream is, for the intermediary:
  {upstream}        in ARGS: the scripted upstream's command line (--upstream stdio, several
                    words) or its URL (--upstream http); also $${PROXY_ENV.upstreamCommand}
                    (JSON array) or $${PROXY_ENV.upstreamUrl}
Options:
  --upstream T      stdio (default: the intermediary starts the upstream) or http (the checker
                    serves it on 127.0.0.1)
  --downstream T    stdio (default: the checker speaks on the intermediary's stdin/stdout) or
                    http (the checker connects to --proxy-url)
  --proxy-url URL   With --downstream http (default http://127.0.0.1:{port}/mcp); {port} here
                    and in ARGS is a free loopback port chosen by the checker
  --revision R      The revision the checker speaks: 2025-06-18 (default; initialize, then a
                    session if the intermediary keeps one) or 2026-07-28 (with --downstream
                    http: server/discover, no session, the envelope in every request's _meta
                    and the Mcp-Method/Mcp-Name headers)
  --report FILE     Also write the report as JSON to FILE
  --timeout MS      Time to reach the intermediary and for each request (default 10000)
  -h, --help        Show this help

Examples:
  mcp-failures check proxy -- mcp-failure-proxy --stdio -- {upstream}
  mcp-failures check proxy --upstream http --downstream http \\
    -- mcp-failure-proxy --listen 127.0.0.1:{port} --upstream-url {upstream}
  mcp-failures check proxy --downstream http --revision 2026-07-28 \\
    -- mcp-failure-proxy --listen 127.0.0.1:{port} --revision 2026-07-28 -- {upstream}

Exit status: 0 every exercised rule passed, 1 a rule failed, 2 usage error, or the intermediary
could not be started or reached.
`;

/** The intermediary could not be started or reached; one line. */
class ReachError extends Error {}

interface Options extends ProgramUnderTest {
  upstream: 'stdio' | 'http';
  downstream: 'stdio' | 'http';
  proxyUrl: string;
  revision: typeof LEGACY_REVISION | typeof MODERN_REVISION;
}

/** The longest the intermediary under test runs: the check ends it long before, as a rule. */
const INTERMEDIARY_DEADLINE_MS = 600_000;

/** The revision the checker speaks unless told otherwise. */
const LEGACY_REVISION = '2025-06-18';

function transportOption(value: string | undefined, name: string): 'stdio' | 'http' {
  const v = value ?? 'stdio';
  if (v !== 'stdio' && v !== 'http')
    throw new UsageError(`--${name} must be stdio or http, got '${v}'`);
  return v;
}

const COMMAND: CheckCommand = {
  what: 'proxy',
  usage: CHECK_PROXY_USAGE,
  options: ['upstream', 'downstream', 'proxy-url', 'report', 'revision'],
  defaultTimeoutMs: 10_000,
  oneLine: [ReachError],
};

function optionsOf(parsed: CheckArgs): Options {
  const { values } = parsed;
  const downstream = transportOption(stringOption(values, 'downstream'), 'downstream');
  const proxyUrl = stringOption(values, 'proxy-url');
  if (proxyUrl !== undefined && downstream !== 'http')
    throw new UsageError('--proxy-url goes with --downstream http');
  const revision = stringOption(values, 'revision') ?? LEGACY_REVISION;
  if (revision !== LEGACY_REVISION && revision !== MODERN_REVISION)
    throw new UsageError(
      `--revision must be ${LEGACY_REVISION} or ${MODERN_REVISION}, got '${revision}'`,
    );
  if (revision === MODERN_REVISION && downstream !== 'http')
    throw new UsageError(`--revision ${MODERN_REVISION} goes with --downstream http`);
  const program = programUnderTest(parsed, 'intermediary', 'PROXY_COMMAND');
  return {
    upstream: transportOption(stringOption(values, 'upstream'), 'upstream'),
    downstream,
    proxyUrl: proxyUrl ?? 'http://127.0.0.1:{port}/mcp',
    ...program,
    revision,
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function loadCases(path: string): ProxyCase[] {
  try {
    return loadProxyCases(path);
  } catch (error) {
    throw new ReachError(`cannot read the intermediary cases ${path}: ${firstLineOf(error)}`);
  }
}

const CLIENT_INFO = { name: 'mcp-failures-check-proxy', version: KIT_PACKAGE_VERSION };
const INITIALIZE = { protocolVersion: LEGACY_REVISION, capabilities: {}, clientInfo: CLIENT_INFO };

/**
 * Opens the conversation over `session` (`initialize`, or on 2026-07-28 `server/discover`,
 * which must name that revision), retrying while an HTTP intermediary is still starting.
 */
async function initialize(
  session: WireSession,
  child: StartedChild,
  retryUntil: number | undefined,
  revision: Options['revision'],
): Promise<void> {
  const modern = revision === MODERN_REVISION;
  const method = modern ? 'server/discover' : 'initialize';
  for (;;) {
    const answer = await session.request(method, modern ? {} : INITIALIZE);
    if (answer.kind === 'result') {
      if (modern) return expectRevision(answer.result);
      break;
    }
    const exited = child.child.exitCode !== null || child.child.signalCode !== null;
    const detail =
      answer.kind === 'rpc-error'
        ? `JSON-RPC error ${answer.code} ${answer.message}`
        : answer.detail;
    if (
      retryUntil === undefined ||
      Date.now() > retryUntil ||
      exited ||
      answer.kind === 'rpc-error'
    ) {
      const said =
        child.lastStderrLine() === '' ? '' : ` (intermediary stderr: ${child.lastStderrLine()})`;
      throw new ReachError(`no answer to ${method} from the intermediary: ${detail}${said}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await session.notify('notifications/initialized');
}

/** A `server/discover` answer must offer 2026-07-28, or the checker cannot speak it. */
function expectRevision(result: unknown): void {
  const versions = isRecord(result) ? result.supportedVersions : undefined;
  if (!Array.isArray(versions) || !versions.includes(MODERN_REVISION))
    throw new ReachError(
      `the intermediary's server/discover does not offer ${MODERN_REVISION} (supportedVersions: ${JSON.stringify(versions)})`,
    );
}

/** Runs `mcp-failures check proxy ...` (argv from `check` on); resolves with the exit code. */
export function runCheckProxy(argv: readonly string[], io: CheckProxyIo): Promise<number> {
  return runCheckCommand(COMMAND, argv, io, (args) => checkProxy(optionsOf(args), io));
}

async function checkProxy(options: Options, io: CheckProxyIo): Promise<number> {
  const cases = loadCases(io.vectors);
  const upstream = await serveUpstream(options, io, cases);
  let intermediary: Intermediary | undefined;
  try {
    intermediary = await startIntermediary(options, upstream);
    await reach(intermediary, options);
    const { listed, answers } = await playCases(intermediary.session, cases);
    const calls = upstream.calls();
    const outcomes: ProxyOutcome[] = answers.map((a) => ({
      ...a,
      upstreamCalls: calls.filter((call) => call.tool === a.case).length,
    }));
    const report = checkProxyOutcomes(cases, outcomes, options.revision);
    const unlisted = cases.map((c) => c.id).filter((id) => !listed.includes(id));
    const notes = [
      `${cases.length} cases through the intermediary (upstream over ${options.upstream}, client over ${options.downstream}, revision ${options.revision}); ${calls.length} tools/call requests reached the upstream`,
    ];
    if (unlisted.length > 0)
      notes.push(
        `tools/list through the intermediary lacked ${unlisted.length} of ${cases.length} tools`,
      );
    io.stdout(formatRuleTable(report.rules, notes, report.verdict, 'no case was played'));
    const ran = [options.command, ...intermediary.args];
    return await endCheck(
      io,
      options.report,
      () => ({
        upstream: options.upstream,
        downstream: options.downstream,
        revision: options.revision,
        command: ran,
        ...report,
        outcomes,
        sent: Object.fromEntries(cases.map((c) => [c.id, c.result])),
      }),
      report.verdict,
    );
  } finally {
    await intermediary?.stop();
    await upstream.close();
  }
}

/** The scripted upstream, where the intermediary finds it, and the calls that reached it. */
interface ServedUpstream {
  env: Record<string, string>;
  /** The placeholders of the intermediary's arguments: whole words, and text inside one. */
  words: Record<string, readonly string[]>;
  text: Record<string, string>;
  calls(): ScriptedCall[];
  close(): Promise<void>;
}

/**
 * Serves the cases as the upstream: on HTTP in this process, or as a `serve-scripted` command
 * the intermediary starts (its calls logged to a file in a directory of its own).
 */
async function serveUpstream(
  options: Options,
  io: Pick<CheckProxyIo, 'self' | 'vectors'>,
  cases: readonly ProxyCase[],
): Promise<ServedUpstream> {
  if (options.upstream === 'http') {
    const calls: ScriptedCall[] = [];
    const http = await startLoopbackHttp(
      createScriptedHandler(proxyScript(cases), (c) => calls.push(c)),
    );
    return {
      env: { [PROXY_ENV.upstreamUrl]: http.url },
      words: {},
      text: { upstream: http.url },
      calls: () => calls,
      close: () => http.close(),
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'mcp-check-proxy-'));
  const log = join(dir, 'calls.jsonl');
  const command = [
    ...io.self,
    ...['check', 'serve-scripted', '--script', 'proxy', '--vectors', io.vectors, '--log', log],
  ];
  return {
    env: { [PROXY_ENV.upstreamCommand]: JSON.stringify(command) },
    words: { '{upstream}': command },
    text: {},
    calls: () => readCallLog(log),
    close: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
  };
}

/** The intermediary under test, running, and the checker's JSON-RPC session with it. */
interface Intermediary {
  child: StartedChild;
  session: WireSession;
  /** Its arguments, placeholders substituted. */
  args: string[];
  /** Ends the requests still waiting for an answer with no answer (`detail` says why). */
  lost(detail: string): void;
  /** Ends it: waiting requests first, then the process. */
  stop(): Promise<void>;
}

/** Starts the intermediary in front of `upstream`, with the session the checker speaks over. */
async function startIntermediary(
  options: Options,
  upstream: ServedUpstream,
): Promise<Intermediary> {
  const text = { ...upstream.text };
  let proxyUrl = '';
  if (options.downstream === 'http') {
    text.port = String(await freePort());
    proxyUrl = substitute([options.proxyUrl], {}, text)[0] ?? '';
  }
  const args = substitute(options.args, upstream.words, text);
  let session: WireSession;
  let child: StartedChild;
  let lost = (_detail: string): void => undefined;
  if (options.downstream === 'stdio') {
    let onLine: (line: string) => void = () => undefined;
    child = startChild(options.command, args, upstream.env, {
      stdin: 'pipe',
      timeoutMs: INTERMEDIARY_DEADLINE_MS,
      onLine: (line) => onLine(line),
    });
    const stdin = child.child.stdin;
    stdin?.on('error', () => undefined);
    const wire = stdioWire((line) => stdin?.write(line), options.timeoutMs);
    ({ onLine, lost, session } = wire);
  } else {
    child = startChild(options.command, args, upstream.env, {
      stdin: 'ignore',
      timeoutMs: INTERMEDIARY_DEADLINE_MS,
    });
    session = httpWire(
      proxyUrl,
      options.timeoutMs,
      options.revision === MODERN_REVISION ? CLIENT_INFO : undefined,
    );
  }
  return {
    child,
    session,
    args,
    lost: (detail) => lost(detail),
    async stop() {
      // Requests still waiting end now, their timers with them.
      lost('the check ended');
      child.child.stdin?.end();
      child.stop();
      await child.ended.catch(() => undefined);
    },
  };
}

/**
 * Opens the conversation with the intermediary, or says in one line why it cannot: it did not
 * start, exited first, or did not answer.
 */
async function reach(intermediary: Intermediary, options: Options): Promise<void> {
  const { child, session } = intermediary;
  // Before initialize answered, the race below names why the intermediary is gone; after it,
  // the requests still waiting end at once instead of at their timeouts.
  let initialized = false;
  const exited = child.ended.then((run) => {
    if (initialized) intermediary.lost('the intermediary exited');
    return run;
  });
  try {
    await Promise.race([
      initialize(
        session,
        child,
        options.downstream === 'http' ? Date.now() + options.timeoutMs : undefined,
        options.revision,
      ),
      exited.then((run) => {
        const said =
          run.lastStderrLine === '' ? '' : ` (intermediary stderr: ${run.lastStderrLine})`;
        throw new ReachError(
          `the intermediary exited with ${run.code === null ? `signal ${run.signal ?? '?'}` : `code ${run.code}`} before initialize${said}`,
        );
      }),
    ]);
  } catch (error) {
    if (error instanceof ChildStartError) throw new ReachError(error.message);
    throw error;
  }
  initialized = true;
}

/** Lists the tools through the intermediary, then calls every case once, in order. */
async function playCases(
  session: WireSession,
  cases: readonly ProxyCase[],
): Promise<{ listed: unknown[]; answers: Array<Omit<ProxyOutcome, 'upstreamCalls'>> }> {
  const listing = await session.request('tools/list', {});
  const listed =
    listing.kind === 'result' && isRecord(listing.result) && Array.isArray(listing.result.tools)
      ? listing.result.tools.filter(isRecord).map((t) => t.name)
      : [];
  const answers: Array<Omit<ProxyOutcome, 'upstreamCalls'>> = [];
  for (const c of cases)
    answers.push({
      case: c.id,
      answer: await session.request('tools/call', { name: c.id, arguments: {} }),
    });
  return { listed, answers };
}
