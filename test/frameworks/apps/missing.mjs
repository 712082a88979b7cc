// Imports an adapter whose framework is not installed in this project; prints what it threw.
try {
  await import(`@omcp/instrumentation-mcp/frameworks/${process.argv[2]}`);
  console.log(JSON.stringify({ imported: true }));
} catch (error) {
  console.log(JSON.stringify({ name: error.name, message: error.message }));
}
