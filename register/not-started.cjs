// The one line the zero-code entry prints when it cannot start telemetry.
'use strict';

/** Names a missing package (one the application's SDK needs) or gives the error's message. */
function notStarted(error) {
  const message = String((error && error.message) || error).split('\n')[0];
  const missing = /Cannot find (?:package|module) '([^']+)'/.exec(message);
  const why = missing ? `${missing[1]} is not installed (npm install ${missing[1]})` : message;
  return `@omcp/instrumentation-mcp/register: telemetry not started: ${why}\n`;
}

module.exports = { notStarted };
