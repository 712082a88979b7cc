/**
 * The rule packs for well-known servers: applied by the server's own `serverInfo.name`, after the
 * user's classifier and rules, before the built-in rules; off with `builtInRulePacks: false`.
 * The packs' rules against the real servers: test/gates/reference-servers.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpInstrumentationConfig } from '../../src/types.js';
import { TOOL_FAILURE_META_KEY as KEY } from '../../packages/tool-failure/src/index.js';
import { RULE_PACKS, rulePackFor } from '../../packages/tool-failure/src/rule-packs.js';
import { compileClassificationRules } from '../../packages/tool-failure/src/classification-rules.js';
import { McpServer, connectPair } from '../helpers/mcp-v1.js';
import { setupTelemetry } from '../helpers/telemetry.js';

const t = setupTelemetry();
afterEach(() => t.instrumentation.setConfig({}));

/** The failure a server named `name` sends for a tool that throws `message`, under `config`. */
async function failureOf(
  name: string,
  message: string,
  config: McpInstrumentationConfig = {},
): Promise<Record<string, unknown> | undefined> {
  t.instrumentation.setConfig(config);
  const server = new McpServer({ name, version: '1' });
  server.registerTool('read_text_file', {}, async () => {
    throw new Error(message);
  });
  const pair = await connectPair(server);
  try {
    const result = await pair.client.callTool({ name: 'read_text_file', arguments: {} });
    return (result._meta as Record<string, Record<string, unknown>> | undefined)?.[KEY];
  } finally {
    await pair.close();
  }
}

const denied = 'Access denied - path outside allowed directories: /etc/passwd not in /srv';

describe('rule packs', () => {
  it('apply to the server whose serverInfo.name is the pack', async () => {
    const failure = await failureOf('secure-filesystem-server', denied);
    expect(failure).toMatchObject({ class: 'governance', code: 'permission_denied' });
    expect(failure?.agentGuidance).toMatch(/outside the directories/);
  });

  it('do not apply to another server with the same error', async () => {
    const failure = await failureOf('my-server', denied);
    expect(failure).toMatchObject({ class: 'reliability', code: 'internal_error' });
  });

  it('are off with builtInRulePacks: false', async () => {
    const failure = await failureOf('secure-filesystem-server', denied, {
      builtInRulePacks: false,
    });
    expect(failure).toMatchObject({ class: 'reliability', code: 'internal_error' });
  });

  it("come after the user's rules and errorClassifier", async () => {
    const rules = [
      { match: { message: '^Access denied' }, class: 'capability' as const, code: 'mine' },
    ];
    expect(
      await failureOf('secure-filesystem-server', denied, { classificationRules: rules }),
    ).toMatchObject({ class: 'capability', code: 'mine' });
    expect(
      await failureOf('secure-filesystem-server', denied, {
        errorClassifier: () => ({ class: 'governance', code: 'policy_blocked' }),
      }),
    ).toMatchObject({ class: 'governance', code: 'policy_blocked' });
    // A user classifier with no answer leaves the pack to decide.
    expect(
      await failureOf('secure-filesystem-server', denied, { errorClassifier: () => undefined }),
    ).toMatchObject({ class: 'governance', code: 'permission_denied' });
  });

  it('are valid rules, one pack per server, and docs/classification.md lists every rule', () => {
    const names = RULE_PACKS.map((p) => p.server);
    expect(new Set(names).size).toBe(names.length);
    const rows: string[] = [];
    for (const pack of RULE_PACKS) {
      expect(compileClassificationRules(pack.rules).problems, pack.server).toEqual([]);
      expect(rulePackFor(pack.server)?.size).toBe(pack.rules.length);
      for (const rule of pack.rules)
        rows.push(
          `| \`${pack.server}\` | \`${rule.match.message}\` | ${rule.class} / ${rule.code} | ${rule.agentGuidance ?? '–'} |`,
        );
    }
    const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'classification.md'), 'utf8');
    const table = /<!-- rule-packs:start -->\n([\s\S]*?)<!-- rule-packs:end -->/.exec(doc)?.[1];
    expect(table?.trim().split('\n').slice(2)).toEqual(rows);
  });
});
