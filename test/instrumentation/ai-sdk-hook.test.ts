/**
 * The module hook of `@ai-sdk/mcp`: its private client class reached without sending anything,
 * patched and unpatched on its prototype, and one diagnostic line when it cannot be (a version
 * outside the range, or a module whose client this package does not recognise).
 */
import { diag } from '@opentelemetry/api';
import { isWrapped } from '@opentelemetry/instrumentation';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpInstrumentation } from '../../src/instrumentation.js';
import {
  AI_SDK_MCP_OUTSIDE,
  AI_SDK_MCP_RANGE,
  aiSdkClientPrototype,
  isAiSdkClient,
} from '../../src/patches/ai-sdk-client.js';
import { collectDiagWarnings } from '../helpers/diag-warnings.js';
import { loadAiSdk } from './ai-sdk-load.js';

let warned: string[];

beforeEach(() => {
  warned = collectDiagWarnings();
});

afterEach(() => {
  diag.disable();
});

function definitions(instrumentation: McpInstrumentation) {
  const defs = instrumentation.getModuleDefinitions().filter((d) => d.name === '@ai-sdk/mcp');
  const supported = defs.find((d) => d.supportedVersions.includes(AI_SDK_MCP_RANGE));
  const outside = defs.find((d) => d.supportedVersions.includes(AI_SDK_MCP_OUTSIDE));
  if (supported?.patch === undefined || outside?.patch === undefined)
    throw new Error('no @ai-sdk/mcp module definitions');
  return { supported, outside };
}

describe('the @ai-sdk/mcp module hook', () => {
  it('finds the client class of the real module without sending a message', async () => {
    const { mcp } = await loadAiSdk('probe');
    const proto = aiSdkClientPrototype(mcp as Record<string, unknown>);
    expect(proto?.constructor.name).toBe('DefaultMCPClient');
    expect(typeof (proto as Record<string, unknown>).requestOnce).toBe('function');
    // A client of that class is recognised as an AI SDK client; an MCP SDK client is not.
    const client = Object.assign(Object.create(proto!) as object, {
      requestMessageId: 0,
      responseHandlers: new Map(),
    });
    expect(isAiSdkClient(client)).toBe(true);
    expect(isAiSdkClient({ _requestMessageId: 0, request: () => undefined })).toBe(false);
  });

  it('patches the class prototype for a supported version and restores it when unpatched', async () => {
    const { mcp } = await loadAiSdk('hook');
    const instrumentation = new McpInstrumentation({ enabled: false });
    const { supported } = definitions(instrumentation);
    const proto = aiSdkClientPrototype(mcp as Record<string, unknown>) as Record<string, unknown>;
    instrumentation.enable();
    try {
      expect(supported.patch!(mcp, '2.0.99')).toBe(mcp);
      expect(isWrapped(proto.requestOnce)).toBe(true);
      // The outer request() is left alone: it sends through requestOnce().
      expect(isWrapped(proto.request)).toBe(false);
      supported.unpatch!(mcp, '2.0.99');
      expect(isWrapped(proto.requestOnce)).toBe(false);
      supported.patch!(mcp, '2.0.99');
    } finally {
      instrumentation.disable();
    }
    expect(isWrapped(proto.requestOnce)).toBe(false);
    expect(warned).toEqual([]);
  });

  it('says once, in one line, that a version outside the range is not instrumented', () => {
    const instrumentation = new McpInstrumentation({ enabled: false });
    const { outside } = definitions(instrumentation);
    const exports = { createMCPClient: () => Promise.resolve({}) };
    expect(outside.patch!(exports, '3.0.0')).toBe(exports);
    outside.patch!(exports, '3.0.0');
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain('@ai-sdk/mcp 3.0.0 is not instrumented');
    expect(warned[0]).toContain(AI_SDK_MCP_RANGE);
    expect(warned[0]).not.toContain('\n');
  });

  it('says once, in one line, when the client cannot be found in a supported version', () => {
    const instrumentation = new McpInstrumentation({ enabled: false });
    // createMCPClient resolves without ever building a client of its own class.
    const exports = { createMCPClient: () => Promise.resolve({}) };
    instrumentation._patchLoaded({ aiSdk: { exports, version: '2.1.0' } });
    instrumentation._patchLoaded({ aiSdk: { exports, version: '2.1.0' } });
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain('@ai-sdk/mcp 2.1.0 is not instrumented');
    expect(warned[0]).toContain('client class or its request method was not found');
  });
});
