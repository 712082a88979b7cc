// Zero-code entry for CommonJS apps: node --require @omcp/instrumentation-mcp/register app.cjs
// Whatever goes wrong here (an optional dependency left out, a broken SDK setting) is one line
// on stderr, and the application runs without telemetry rather than not at all.
'use strict';
try {
  require('../dist/cjs/register/start.js').startTelemetry([__filename]);
} catch (error) {
  process.stderr.write(require('./not-started.cjs').notStarted(error));
}
