import {
  compileClassificationRules,
  type ClassificationRule,
  type ClassificationRules,
} from './classification-rules.js';

/**
 * Classification rules for well-known servers whose code the operator does not own, applied
 * when the server's own `serverInfo.name` is the pack's `server`. They run after the user's
 * `errorClassifier` and `classificationRules`, before the built-in rules; the
 * `builtInRulePacks` option (`OTEL_INSTRUMENTATION_MCP_RULE_PACKS`) turns them off. Each rule is
 * tested against the real server's real error (test/gates/reference-servers.test.ts) and listed
 * in docs/classification.md.
 */
export interface RulePack {
  /** The `serverInfo.name` the server announces. */
  server: string;
  /** The npm package that serves it, at the version its rules were written against. */
  package: string;
  rules: readonly ClassificationRule[];
}

export const RULE_PACKS: readonly RulePack[] = [
  {
    server: 'secure-filesystem-server',
    package: '@modelcontextprotocol/server-filesystem@2026.8.31',
    rules: [
      {
        match: { message: '^Access denied - ' },
        class: 'governance',
        code: 'permission_denied',
        agentGuidance:
          'The path is outside the directories this server may use; pick a path inside them (list_allowed_directories) or ask the user to allow it.',
      },
      {
        match: { message: '^Could not find exact match for edit' },
        class: 'capability',
        code: 'invalid_input',
        agentGuidance: 'Read the file again and give its exact text as oldText.',
      },
      {
        match: { message: '^Cannot specify both head and tail' },
        class: 'capability',
        code: 'invalid_input',
      },
      {
        match: { message: '^Destination already exists' },
        class: 'capability',
        code: 'invalid_input',
        agentGuidance: 'Choose another destination, or ask the user before replacing the file.',
      },
    ],
  },
  {
    server: 'memory-server',
    package: '@modelcontextprotocol/server-memory@2026.8.31',
    rules: [
      {
        match: { message: '^Entity with name .* not found' },
        class: 'capability',
        code: 'resource_not_found',
        agentGuidance: 'Create the entity first (create_entities), or use a name from read_graph.',
      },
    ],
  },
  {
    server: 'mcp-servers/everything',
    package: '@modelcontextprotocol/server-everything@2026.8.31',
    rules: [
      {
        match: {
          message: '^Error processing file .*: Domain .* is not in the allowed domains list',
        },
        class: 'governance',
        code: 'policy_blocked',
        agentGuidance:
          'This server may only fetch from its allowed domains; do not retry with this URL.',
      },
      {
        match: { message: '^Error processing file .*: Unsupported URL protocol' },
        class: 'capability',
        code: 'invalid_input',
      },
    ],
  },
];

/** Compiled on first use, one entry per server name. */
let compiled: Map<string, ClassificationRules> | undefined;

/** The pack of the server named `serverName`, or undefined when there is none. */
export function rulePackFor(serverName: string | undefined): ClassificationRules | undefined {
  if (serverName === undefined) return undefined;
  if (compiled === undefined) {
    compiled = new Map();
    for (const pack of RULE_PACKS) {
      const { rules, problems } = compileClassificationRules(
        pack.rules,
        `rule pack ${pack.server}`,
      );
      // The packs are this package's own data; a test keeps them free of problems.
      if (problems.length === 0) compiled.set(pack.server, rules);
    }
  }
  return compiled.get(serverName);
}
