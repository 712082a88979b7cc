// Zero-code entry for CommonJS apps: node --require @omcp/instrumentation-mcp/register app.cjs
'use strict';
require('../dist/cjs/register/start.js').startTelemetry();
