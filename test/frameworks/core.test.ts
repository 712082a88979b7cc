/**
 * The adapters' shared core (options, the retry engine of a wrapped client, which results get a
 * note), and the adapters' own rules on inputs the framework tests do not reach. The adapters
 * check on import that their framework is installed, so these tests import them from a working
 * directory with an empty stand-in folder of each framework; every call goes to plain objects.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failedCallNote, retryEngineOf } from '../../src/frameworks/core.js';
import { createToolRetry } from '../../src/retry/with-tool-retry.js';
import { createToolFailure, toolFailureResult } from '../../packages/tool-failure/src/build.js';
import { toolFailureNote } from '../../packages/tool-failure/src/model-note.js';
import type * as AiSdk from '../../src/frameworks/ai-sdk.js';
import type * as LangChain from '../../src/frameworks/langchain.js';

const FAILURE = createToolFailure({
  class: 'governance',
  code: 'permission_denied',
  correlationId: '4bf92f3577b34da6a3ce929d0e0e4736',
  agentGuidance: 'Ask a supervisor.',
});
const governance = toolFailureResult(FAILURE, 'Not allowed.');
const NOTE = toolFailureNote(FAILURE);

describe('retryEngineOf', () => {
  it('makes one engine for a policy, keeps a given engine, and none for false', () => {
    const engine = createToolRetry({});
    expect(retryEngineOf('a', engine, true)).toBe(engine);
    expect(retryEngineOf('a', false, true)).toBeUndefined();
    expect(retryEngineOf('a', undefined, true)).toHaveProperty('wrap');
    expect(retryEngineOf('a', { maxAttempts: 2 }, true)).toHaveProperty('wrap');
  });

  it('refuses retryOnThrow where the framework retries what it throws, and allows it elsewhere', () => {
    expect(() => retryEngineOf('x', { retryOnThrow: () => true }, true)).toThrow(
      'x: retryOnThrow is not allowed here',
    );
    expect(retryEngineOf('x', { retryOnThrow: true }, false)).toHaveProperty('wrap');
  });

  it('answers a bad value at once, in one line', () => {
    expect(() => retryEngineOf('x', 3 as never, false)).toThrow(
      'x: retry must be a retry policy, an engine from createToolRetry, or false',
    );
    expect(() => retryEngineOf('x', { maxAttempts: 0 }, false)).toThrow(RangeError);
  });
});

describe('failedCallNote', () => {
  it('is the note of a failed call with a valid failure object', () => {
    expect(failedCallNote(governance)).toBe(NOTE);
  });

  it('is undefined for a result that did not fail, whatever its _meta holds, and for odd input', () => {
    expect(failedCallNote({ ...governance, isError: false })).toBeUndefined();
    expect(failedCallNote({ content: [], isError: true })).toBeUndefined();
    expect(failedCallNote(null)).toBeUndefined();
    expect(failedCallNote('text')).toBeUndefined();
  });
});

describe('the adapters', () => {
  const cwd = process.cwd();
  let aiSdk: typeof AiSdk;
  let langchain: typeof LangChain;

  beforeAll(async () => {
    const project = mkdtempSync(join(tmpdir(), 'omcp-adapters-'));
    for (const name of ['@ai-sdk/mcp', '@langchain/mcp-adapters']) {
      mkdirSync(join(project, 'node_modules', name), { recursive: true });
      writeFileSync(join(project, 'node_modules', name, 'package.json'), '{}');
    }
    process.chdir(project);
    aiSdk = await import('../../src/frameworks/ai-sdk.js');
    langchain = await import('../../src/frameworks/langchain.js');
  });

  afterAll(() => process.chdir(cwd));

  it('say in one line what they expect when handed something else', () => {
    expect(() => aiSdk.withToolFailures({} as never)).toThrow(
      '@omcp/instrumentation-mcp/frameworks/ai-sdk: withToolFailures expects the client of createMCPClient (an object with tools())',
    );
    expect(() => langchain.withToolFailures(undefined)).toThrow(
      '@omcp/instrumentation-mcp/frameworks/langchain: withToolFailures got no client: is the server name in the MultiServerMCPClient configuration, and did it connect?',
    );
    expect(() => langchain.withToolFailures(null as never)).toThrow(
      '@omcp/instrumentation-mcp/frameworks/langchain: withToolFailures expects an MCP SDK Client',
    );
  });

  it('AI SDK: a text model output gets the note after a blank line; other outputs and results are kept', async () => {
    const tool = {
      description: 'd',
      execute: async (_input?: unknown) => governance,
      toModelOutput: ({ output }: { output: unknown }) =>
        output === governance
          ? { type: 'text', value: 'Not allowed.' }
          : { type: 'json', value: 1 },
    };
    const client = {
      tools: async () => ({ t: tool }),
      close: () => 'closed',
    };
    const wrapped = aiSdk.withToolFailures(client, { modelNote: true, retry: false });
    const tools = (await wrapped.tools()) as { t: typeof tool };
    expect(tools.t.description).toBe('d');
    expect(await tools.t.toModelOutput({ output: governance })).toEqual({
      type: 'text',
      value: `Not allowed.\n\n${NOTE}`,
    });
    expect(await tools.t.toModelOutput({ output: { content: [] } })).toEqual({
      type: 'json',
      value: 1,
    });
    expect(await tools.t.execute({})).toBe(governance);
    expect(wrapped.close()).toBe('closed');
    // The user's tool set is copied, never changed.
    expect((await client.tools()).t.toModelOutput).toBe(tool.toModelOutput);
  });

  it('LangChain: a failed call without text gets an empty text block first, so two blocks reach the model', async () => {
    const image = { type: 'image', data: 'AA==', mimeType: 'image/png' };
    const result = { ...governance, content: [image] };
    const client = { callTool: async (_params: { name: string }) => result };
    const wrapped = langchain.withToolFailures(client, { modelNote: true, retry: false });
    const out = (await wrapped.callTool({ name: 't' })) as Record<string, unknown>;
    expect(out).toEqual({
      content: [{ type: 'text', text: '' }, image, { type: 'text', text: NOTE }],
      _meta: governance._meta,
    });
    expect(result.isError).toBe(true);
    expect(langchain.toolFailureOfArtifact([{ type: 'mcp_meta', data: out._meta }])).toEqual(
      FAILURE,
    );
  });

  it('LangChain: an artifact without a valid failure object gives undefined', () => {
    const { toolFailureOfArtifact } = langchain;
    expect(toolFailureOfArtifact(undefined)).toBeUndefined();
    expect(toolFailureOfArtifact([{ type: 'mcp_meta', data: { other: 1 } }])).toBeUndefined();
    expect(
      toolFailureOfArtifact([
        { type: 'mcp_meta', data: { 'io.modelcontextprotocol/toolFailure': { class: 'nope' } } },
      ]),
    ).toBeUndefined();
  });
});
