#!/usr/bin/env node
// The `mcp-failure-proxy` executable: it runs `cli-main.ts`, which needs an MCP SDK (an optional
// peer); when that is missing it says so in one line.
import { startExecutable } from '@omcp/instrumentation-mcp/executable';

startExecutable(
  'mcp-failure-proxy',
  '@omcp/mcp-failure-proxy',
  () => import('./cli-main.js').then((m) => m.runProxyExecutable(process.argv.slice(2))),
  1,
);
