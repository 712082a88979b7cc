// The log server.mjs appends each tools/call it receives to (its CALL_LOG): one per agent app,
// emptied when the app starts.
import { readFileSync, writeFileSync } from 'node:fs';

/** An empty calls-<name>.jsonl beside the apps: its `path`, and `calls()` reads it. */
export function callLog(name) {
  const path = new URL(`./calls-${name}.jsonl`, import.meta.url).pathname;
  writeFileSync(path, '');
  const calls = () =>
    readFileSync(path, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  return { path, calls };
}
