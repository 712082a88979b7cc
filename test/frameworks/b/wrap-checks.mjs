// What withToolFailures of the adapter named by the first argument says about bad input, as
// JSON: the error (name and message) for an object that is not the framework's, and for a
// policy with retryOnThrow; whether wrapping twice returns the same object.
const adapter = process.argv[2];
const { withToolFailures } = await import(`@omcp/instrumentation-mcp/frameworks/${adapter}`);
// Each project has one of the frameworks only.
const { MCPClient } = adapter === 'mastra' ? await import('@mastra/mcp') : {};
const { MCPServerStdio } = adapter === 'openai-agents' ? await import('@openai/agents-core') : {};
let n = 0;
const make = () =>
  adapter === 'mastra'
    ? new MCPClient({ id: `checks-${(n += 1)}`, servers: { s: { command: 'true' } } })
    : new MCPServerStdio({ name: 's', command: 'true' });
const errorOf = (fn) => {
  try {
    fn();
    return null;
  } catch (e) {
    return `${e.name}: ${e.message}`;
  }
};
const twice = make();
console.log(
  JSON.stringify({
    notTheFramework: errorOf(() => withToolFailures({ listTools: async () => [] })),
    retryOnThrow: errorOf(() => withToolFailures(make(), { retry: { retryOnThrow: true } })),
    sameObject: withToolFailures(withToolFailures(twice)) === twice,
  }),
);
