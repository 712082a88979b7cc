#!/usr/bin/env node
// The `mcp-failures` executable: it runs `mcp-failures-main.ts`, which needs an MCP SDK (an
// optional peer); when that is missing it says so in one line.
import { startExecutable } from '@omcp/instrumentation-mcp/executable';

startExecutable(
  'mcp-failures',
  '@omcp/mcp-failures',
  () => import('./mcp-failures-main.js').then((m) => m.dispatch()),
  2,
);
