import { spawnSync } from 'node:child_process';

/** Where an OTLP/HTTP exporter of `signal` sends, as the SDK reads it from `OTEL_EXPORTER_OTLP_*`. */
export interface OtlpHttpTarget {
  url: string;
  headers: Record<string, string>;
}

/** An `OTEL_*` string as the SDK reads it: unset, empty and blank are all absent. */
function envString(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
}

/** `key=value,key2=value2` with URL-encoded values, the `OTEL_EXPORTER_OTLP_HEADERS` format. */
function parseHeaders(raw: string | undefined, into: Record<string, string>): void {
  for (const pair of raw?.split(',') ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    const key = pair.slice(0, at).trim();
    let value = pair.slice(at + 1).trim();
    try {
      value = decodeURIComponent(value);
    } catch {
      // kept as written: the SDK's exporter sends such a value undecoded too
    }
    if (key !== '') into[key.toLowerCase()] = value;
  }
}

/**
 * The URL and headers of `signal`: the signal's own endpoint as written, else the base endpoint
 * with `/v1/<signal>` appended, else `http://localhost:4318/v1/<signal>`; the signal's headers
 * over the common ones.
 */
export function otlpHttpTarget(
  env: NodeJS.ProcessEnv,
  signal: 'traces' | 'logs' | 'metrics',
): OtlpHttpTarget {
  const upper = signal.toUpperCase();
  const own = envString(env, `OTEL_EXPORTER_OTLP_${upper}_ENDPOINT`);
  const base = envString(env, 'OTEL_EXPORTER_OTLP_ENDPOINT') ?? 'http://localhost:4318';
  const url = own ?? `${base.endsWith('/') ? base : `${base}/`}v1/${signal}`;
  const headers: Record<string, string> = {};
  parseHeaders(envString(env, 'OTEL_EXPORTER_OTLP_HEADERS'), headers);
  parseHeaders(envString(env, `OTEL_EXPORTER_OTLP_${upper}_HEADERS`), headers);
  return { url, headers };
}

/** One OTLP/HTTP request to make at exit. */
export interface SyncPost {
  target: OtlpHttpTarget;
  contentType: string;
  body: Uint8Array;
}

/** What became of one request: `sent`, or why not. */
export type SyncPostResult = 'sent' | 'rejected' | 'unreachable' | 'timed out';

/**
 * The child's script: reads the requests (JSON, bodies in base64) from its standard input,
 * makes them all at once and prints what became of each, as a JSON array. It loads nothing of
 * the parent.
 */
const POSTER = `
const chunks = [];
process.stdin.on('data', (c) => chunks.push(c)).on('end', () => {
  const posts = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  Promise.all(posts.map((post) => new Promise((resolve) => {
    const target = new URL(post.url);
    const body = Buffer.from(post.body, 'base64');
    const http = require(target.protocol === 'https:' ? 'node:https' : 'node:http');
    const req = http.request(target, {
      method: 'POST',
      headers: { ...post.headers, 'content-type': post.contentType, 'content-length': body.length },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode >= 200 && res.statusCode < 300 ? 'sent' : 'rejected'));
    });
    req.on('error', () => resolve('unreachable'));
    req.end(body);
  }))).then((results) => process.stdout.write(JSON.stringify(results)));
});
`;

/**
 * Makes `posts` from one child Node process and waits for it, at most `timeoutMs` in all: the
 * one way to send over HTTP while the process is in its \`exit\` event, where nothing
 * asynchronous runs. The child gets the environment without `NODE_OPTIONS` and with
 * `OTEL_SDK_DISABLED=true`, so a preloaded register entry does not start telemetry in it. Bun
 * runs `-e` itself; Deno runs it as `deno eval`.
 */
export function postSync(posts: readonly SyncPost[], timeoutMs: number): SyncPostResult[] {
  // OTEL_SDK_DISABLED: a preload Bun reads from bunfig.toml starts no telemetry there either.
  const env: NodeJS.ProcessEnv = { ...process.env, OTEL_SDK_DISABLED: 'true' };
  delete env.NODE_OPTIONS;
  const input = JSON.stringify(
    posts.map((post) => ({
      url: post.target.url,
      headers: post.target.headers,
      contentType: post.contentType,
      body: Buffer.from(post.body).toString('base64'),
    })),
  );
  const child = spawnSync(process.execPath, ['-e', POSTER], {
    input,
    timeout: timeoutMs,
    env,
    encoding: 'utf8',
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  try {
    const results = JSON.parse(child.stdout) as unknown;
    if (Array.isArray(results) && results.length === posts.length)
      return results.map((r) =>
        r === 'sent' || r === 'rejected' ? r : 'unreachable',
      ) as SyncPostResult[];
  } catch {
    // no answer from the child: it was stopped by the timeout, or could not start
  }
  return posts.map(() => (child.signal !== null ? 'timed out' : 'unreachable'));
}
