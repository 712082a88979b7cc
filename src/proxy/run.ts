import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ProxyCliOptions } from './args.js';
import { serveStreamableHttp } from './http.js';
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
  const proxy = createToolFailureProxy({
    upstream: await upstreamFactory(options, io.env),
    timeoutMs: options.timeoutMs,
    connectTimeoutMs: options.connectTimeoutMs,
    retry: options.retry,
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
  let endpoint;
  try {
    endpoint = await serveStreamableHttp(proxy, options.downstream.host, options.downstream.port);
  } catch (error) {
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
    return (): Transport => new StreamableHTTPClientTransport(new URL(upstream.url));
  }
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  // The child inherits the proxy's whole environment, as if it had been started directly.
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) childEnv[k] = v;
  return (): Transport =>
    new StdioClientTransport({
      command: upstream.command,
      args: upstream.args,
      env: childEnv,
      stderr: 'inherit',
    });
}
