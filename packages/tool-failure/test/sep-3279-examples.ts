/**
 * The result examples of SEP-3279 "Negotiated tool result variants" (modelcontextprotocol PR
 * #3279, seps/3279-negotiated-tool-result-variants.md at e63642f0, 2026-08-19), each made a
 * failed call: the SEP's own `outputs` (its "Core examples" and "MCP Apps integration"), with
 * `isError: true` (which the SEP keeps) and this extension's failure object in the result-level
 * `_meta`, beside whatever `_meta` the example already had. The SEP gives no error example; its
 * "Errors" section lets a failed call return outputs for the requested selectors.
 */
import { TOOL_FAILURE_META_KEY } from '../src/constants.js';

export const CORRELATION_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

/** The failure every example carries. */
export const FAILURE = {
  class: 'reliability',
  code: 'upstream_unavailable',
  retryable: true,
  correlationId: CORRELATION_ID,
  agentGuidance: 'The customer directory is busy; try again shortly.',
} as const;

/** One output of an example, as the SEP draws it. */
export interface ExampleOutput {
  audience: string;
  format: string;
  content?: unknown[];
  structuredContent?: unknown;
}

/** An example result: the SEP's outputs, `isError`, and `_meta` with the failure object. */
export interface ExampleResult {
  resultType: string;
  outputs: ExampleOutput[];
  isError: boolean;
  _meta: Record<string, unknown>;
}

const failed = (outputs: ExampleOutput[], meta: Record<string, unknown> = {}): ExampleResult => ({
  resultType: 'complete',
  outputs,
  isError: true,
  _meta: { ...meta, [TOOL_FAILURE_META_KEY]: { ...FAILURE } },
});

/** "Conversational client": `assistant/content` only. */
export const conversational = () =>
  failed([
    {
      audience: 'assistant',
      format: 'content',
      content: [
        {
          type: 'text',
          text: 'The customer directory did not answer; no Globex records could be searched.',
        },
      ],
    },
  ]);

/** "Code-mode client": `programmatic/structured` only. */
export const codeMode = () =>
  failed([
    {
      audience: 'programmatic',
      format: 'structured',
      structuredContent: { items: [], nextCursor: 'eyJvZmZzZXQiOjJ9' },
    },
  ]);

/**
 * "Structured model input": `assistant/structured` only (the SEP shows this request's selector,
 * not its result; the payload here is ours).
 */
export const structuredModelInput = () =>
  failed([
    {
      audience: 'assistant',
      format: 'structured',
      structuredContent: { error: 'directory_unavailable', query: 'Globex' },
    },
  ]);

/** "User-visible media": `user/content` (images) only. */
export const userMedia = () =>
  failed([
    {
      audience: 'user',
      format: 'content',
      content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }],
    },
  ]);

/** "Host-native structured presentation": `user/structured` only. */
export const hostNativeTable = () =>
  failed([
    {
      audience: 'user',
      format: 'structured',
      structuredContent: [{ displayName: 'Globex Retail', region: 'NA' }],
    },
  ]);

/** "MCP Apps integration": `assistant/content` and the View's output, with the View's `_meta`. */
export const apps = () =>
  failed(
    [
      {
        audience: 'assistant',
        format: 'content',
        content: [
          {
            type: 'text',
            text: 'The interactive table could not be loaded: the directory is busy.',
          },
        ],
      },
      {
        audience: 'io.modelcontextprotocol/ui',
        format: 'structured',
        structuredContent: {
          columns: ['displayName', 'region', 'lastActivity'],
          rows: [{ customerId: 'cust_1042', displayName: 'Globex Retail', region: 'NA' }],
        },
      },
    ],
    {
      'io.modelcontextprotocol/ui': {
        datasetVersion: 'v18',
        continuationToken: 'view_opaque_token',
      },
    },
  );

/** Every example, by the SEP's heading. */
export const SEP_EXAMPLES = {
  'Conversational client': conversational,
  'Code-mode client': codeMode,
  'Structured model input': structuredModelInput,
  'User-visible media': userMedia,
  'Host-native structured presentation': hostNativeTable,
  'MCP Apps integration': apps,
} as const;
