// The zero-code entry is imported for its effect (`node --import`, `--require`, or
// `import '@omcp/instrumentation-mcp/register'`): it exports nothing.
export {};
