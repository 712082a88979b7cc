#!/usr/bin/env node
// The `mcp-failure-proxy` executable: it runs `cli-main.ts`, which needs the instrumentation
// package beside this one (an optional peer); when that is missing it says so in one line.
import { startExecutable } from '@omcp/tool-failure/internal';

startExecutable('mcp-failure-proxy', '@omcp/mcp-failure-proxy', () => import('./cli-main.js'), 1);
