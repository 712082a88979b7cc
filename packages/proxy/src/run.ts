import { readFileSync } from 'node:fs';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { PROXY_EXIT, type ProxyCliOptions, type SecretSource } from './args.js';
import { ProxyHttpConfigError, serveStreamableHttp } from './http.js';
import { createToolFailureProxy } from './proxy.js';
import type { UpstreamTransportFactory } from './types.js';

/** The process around the proxy: its streams, environment and exit. */
export interface ProxyProcess {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
  /** Registers a shutdown trigger (signals); the callback runs once. */
  onShutdown(stop: () => void): void;
}

/** Runs the proxy the command line describes until shutdown; resolves to the exit code. */
export async function runFailureProxy(options: ProxyCliOptions, io: ProxyProcess): Promise<number> {
  let upstream: UpstreamTransportFactory;
  let authToken: string | undefined;
  try {
    const d = options.downstream;
    if (d.kind === 'http' && d.authToken !== undefined)
      authToken = bearerToken(readSecret(d.authToken, '--auth-token', io.env));
    upstream = await upstreamFactory(options, io.env);
  } catch (error) {
    if (!(error instanceof SecretError)) throw error;
    io.stderr(`mcp-failure-proxy: ${error.message}\n`);
    return PROXY_EXIT.usage;
  }
  const log = (line: string): void => io.stderr(`mcp-failure-proxy: ${line}\n`);
  const proxy = createToolFailureProxy({
    log,
    upstream,
    timeoutMs: options.timeoutMs,
    connectTimeoutMs: options.connectTimeoutMs,
    retry: options.retry,
    circuitBreaker: options.circuitBreaker,
    trustIncomingContext: incomingContextTrusted(io.env),
  });
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  io.onShutdown(stop);
  if (options.downstream.kind === 'stdio') {
    const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
    const transport = new StdioServerTransport(
      io.stdin as NodeJS.ReadStream,
      io.stdout as NodeJS.WriteStream,
    );
    let ended = false;
    const end = (): void => {
      ended = true;
      stop();
    };
    io.stdin.once('end', end);
    io.stdin.once('close', end);
    await proxy.connect(transport);
    // The transport may also close itself (a message beyond the SDK's read buffer): stdin is then
    // paused, never ends, and the proxy would wait for good. Its last error says why.
    let lastError: string | undefined;
    const onerror = transport.onerror;
    transport.onerror = (error) => {
      lastError = error.message;
      onerror?.(error);
    };
    const onclose = transport.onclose;
    transport.onclose = () => {
      onclose?.();
      stop();
    };
    await stopped;
    await proxy.close();
    if (ended || lastError === undefined) return 0;
    io.stderr(`mcp-failure-proxy: the client connection failed: ${lastError}\n`);
    return 1;
  }
  const d = options.downstream;
  let endpoint;
  try {
    endpoint = await serveStreamableHttp(proxy, d.host, d.port, {
      allowedHosts: d.allowedHosts,
      allowedOrigins: d.allowedOrigins,
      authToken,
      allowUnauthenticated: d.allowUnauthenticated,
      stateless: d.stateless,
      ...(d.revision === undefined ? {} : { revision: d.revision }),
      limits: d.limits,
      log,
    });
  } catch (error) {
    if (error instanceof ProxyHttpConfigError) {
      io.stderr(`mcp-failure-proxy: ${error.message}\n`);
      await proxy.close();
      return PROXY_EXIT.usage;
    }
    io.stderr(
      `mcp-failure-proxy: cannot listen on ${options.downstream.host}:${options.downstream.port}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    await proxy.close();
    return 1;
  }
  io.stderr(`mcp-failure-proxy: listening on ${endpoint.url}\n`);
  await stopped;
  await endpoint.close();
  await proxy.close();
  return 0;
}

async function upstreamFactory(
  options: ProxyCliOptions,
  env: NodeJS.ProcessEnv,
): Promise<UpstreamTransportFactory> {
  const upstream = options.upstream;
  if (upstream.kind === 'http') {
    const { StreamableHTTPClientTransport } =
      await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    if (upstream.header === undefined)
      return (): Transport => new StreamableHTTPClientTransport(new URL(upstream.url));
    const [name, value] = headerLine(readSecret(upstream.header, '--upstream-header', env));
    return (): Transport =>
      redacting(
        new StreamableHTTPClientTransport(new URL(upstream.url), {
          requestInit: { headers: { [name]: value } },
        }),
        value,
      );
  }
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  // The child inherits the proxy's environment, as if it had been started directly, except the
  // downstream bearer token: that secret is the proxy's, never the tool server's.
  const d = options.downstream;
  const scrubbed = d.kind === 'http' && d.authToken?.from === 'env' ? d.authToken.name : undefined;
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && k !== scrubbed) childEnv[k] = v;
  return (): Transport =>
    new StdioClientTransport({
      command: upstream.command,
      args: upstream.args,
      env: childEnv,
      stderr: 'inherit',
    });
}

/** A secret that could not be read or used; its message never holds the secret. */
class SecretError extends Error {}

/** Reads a secret from its file or variable; `flag` names the option pair in errors. */
function readSecret(source: SecretSource, flag: string, env: NodeJS.ProcessEnv): string {
  let text: string | undefined;
  if (source.from === 'env') {
    text = env[source.name];
    if (text === undefined || text.trim() === '')
      throw new SecretError(
        `${flag}-env: the environment variable ${source.name} is not set or empty`,
      );
  } else {
    try {
      text = readFileSync(source.path, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new SecretError(`${flag}-file: cannot read ${source.path}: ${code}`);
    }
    if (text.trim() === '') throw new SecretError(`${flag}-file: ${source.path} is empty`);
  }
  return text.trim();
}

function bearerToken(text: string): string {
  // What `Authorization: Bearer` can carry in one token (RFC 6750 b64token, leniently).
  if (!/^[\x21-\x7e]+$/.test(text))
    throw new SecretError('the bearer token must be one line of visible ASCII without spaces');
  return text;
}

/** `Name: value` on one line; errors name the problem, never the value. */
function headerLine(text: string): [string, string] {
  const colon = text.indexOf(':');
  const name = colon === -1 ? '' : text.slice(0, colon).trim();
  const value = colon === -1 ? '' : text.slice(colon + 1).trim();
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || value === '' || /[\r\n\0]/.test(value))
    throw new SecretError('--upstream-header: expected one line "Name: value"');
  return [name, value];
}

/**
 * The upstream transport with `secret` cut out of every error it reports, so an upstream that
 * echoes the header back cannot put it into the proxy's spans, logs or relayed errors.
 */
function redacting(transport: Transport, secret: string): Transport {
  const scrub = (error: unknown): unknown => {
    if (error instanceof Error && error.message.includes(secret)) {
      error.message = error.message.split(secret).join('[redacted]');
      if (error.stack !== undefined) error.stack = error.stack.split(secret).join('[redacted]');
    }
    return error;
  };
  return new Proxy(transport, {
    get(target, key) {
      if (key === 'send' || key === 'start' || key === 'close') {
        const method = Reflect.get(target, key) as (...a: unknown[]) => Promise<void>;
        return (...args: unknown[]) =>
          method.apply(target, args).catch((error: unknown) => Promise.reject(scrub(error)));
      }
      return Reflect.get(target, key) as unknown;
    },
    set(target, key, value) {
      if (key === 'onerror' && typeof value === 'function') {
        const onerror = value as (error: Error) => void;
        return Reflect.set(target, key, (error: Error) => onerror(scrub(error) as Error));
      }
      return Reflect.set(target, key, value);
    },
  });
}

/**
 * Whether callers' trace context and baggage may reach the upstream: not when
 * `OTEL_INSTRUMENTATION_MCP_TRUST_INCOMING_CONTEXT` is `false` (any case, blanks around
 * ignored, as the instrumentation reads it).
 */
function incomingContextTrusted(env: NodeJS.ProcessEnv): boolean {
  return env.OTEL_INSTRUMENTATION_MCP_TRUST_INCOMING_CONTEXT?.trim().toLowerCase() !== 'false';
}
