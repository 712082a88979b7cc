/**
 * The 2026-07-28 side of `mcp-failures check server`: the capabilities the server answers a
 * `server/discover` with, where it declares extensions. A short connection of its own, made with
 * the MCP SDK 2.x client pinned to 2026-07-28 (the 1.x client of the session speaks 2025-11-25,
 * whose capabilities have no `extensions`). The SDK is loaded on first use: it is an optional
 * peer dependency, and without it the report says so.
 */
import { firstLineOf } from '@omcp/tool-failure/wire';

/** The server to check. */
export type CheckTarget =
  { kind: 'stdio'; command: string; args: string[] } | { kind: 'http'; url: string };

/** The revision that negotiates extensions. */
export const DISCOVER_REVISION = '2026-07-28';

/** What the discovery found: the capabilities, or why there are none to look at (one line). */
export type DiscoverOutcome =
  { kind: 'discovered'; capabilities: unknown } | { kind: 'unavailable'; why: string };

/** Connects to `target` at 2026-07-28, reads the server's capabilities, disconnects. */
export async function discoverCapabilities(
  target: CheckTarget,
  timeoutMs: number,
): Promise<DiscoverOutcome> {
  let sdk;
  try {
    const [client, stdio] = await Promise.all([
      import('@modelcontextprotocol/client'),
      import('@modelcontextprotocol/client/stdio'),
    ]);
    sdk = { client, stdio };
  } catch {
    return {
      kind: 'unavailable',
      why: `${DISCOVER_REVISION} not checked: the MCP SDK 2.x client (@modelcontextprotocol/client) is not installed`,
    };
  }
  // A subclass: the SDK probes it in place, one process, where its own class gets a sibling
  // process for the probe and then the session's.
  class InPlaceStdio extends sdk.stdio.StdioClientTransport {}
  const transport =
    target.kind === 'stdio'
      ? new InPlaceStdio({
          command: target.command,
          args: target.args,
          env: environment(),
          stderr: 'ignore',
        })
      : new sdk.client.StreamableHTTPClientTransport(new URL(target.url));
  const client = new sdk.client.Client(
    { name: 'mcp-failures-check', version: '0' },
    { versionNegotiation: { mode: { pin: DISCOVER_REVISION } } },
  );
  client.onerror = () => undefined;
  try {
    await client.connect(transport, { timeout: timeoutMs });
    return { kind: 'discovered', capabilities: client.getServerCapabilities() };
  } catch (error) {
    return { kind: 'unavailable', why: `${DISCOVER_REVISION} not offered: ${firstLineOf(error)}` };
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** The checker's environment for a stdio server under test: both connections pass this. */
export function environment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return env;
}
