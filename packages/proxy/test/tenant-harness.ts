// The tenants of the proxy's tenant tests (tenants.test.ts, gateway-findings.test.ts): a stdio
// child of packages/proxy/test/fixtures/tenant-server.mjs as the upstream, and SDK 1.x clients holding
// the endpoint's token that record every notification they hear.
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client } from '../../../test/helpers/mcp-v1.js';

export const TENANT_SERVER = 'packages/proxy/test/fixtures/tenant-server.mjs';
export const TOKEN = 'tenant-test-token';

export type Heard = { method: string; params?: Record<string, unknown> };

/** A stdio child of the tenant server per upstream connection the proxy opens. */
export function stdioUpstream(): () => StdioClientTransport {
  return () =>
    new StdioClientTransport({
      command: process.execPath,
      args: [TENANT_SERVER],
      stderr: 'ignore',
    });
}

/** A tenant: an SDK 1.x client with the token, recording every notification it hears. */
export async function tenant(
  url: string,
  name: string,
): Promise<{ client: Client; heard: Heard[]; transport: StreamableHTTPClientTransport }> {
  const heard: Heard[] = [];
  const client = new Client({ name, version: '1' });
  client.fallbackNotificationHandler = async (n) => {
    heard.push(n as Heard);
  };
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
  });
  await client.connect(transport);
  return { client, heard, transport };
}
