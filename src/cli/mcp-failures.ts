#!/usr/bin/env node
// The `mcp-failures` executable: it runs `mcp-failures-main.ts`, which needs the instrumentation
// and proxy packages beside this one (optional peers); when one is missing it says so in one line.
import { startExecutable } from '@omcp/tool-failure/internal';

startExecutable('mcp-failures', '@omcp/mcp-failures', () => import('./mcp-failures-main.js'), 2);
