/** Packages (`name@version`) an application of each stack installs, the api first. */
export const STACKS: {
  readonly card: readonly [string, ...string[]];
  readonly 'sdk-node 2.x': readonly [string, ...string[]];
  readonly 'sdk-node 3.x': readonly [string, ...string[]];
  readonly mixed: readonly [string, ...string[]];
};

/** The MCP SDK the applications serve with (`name@version`). */
export const MCP_SDK: string;
