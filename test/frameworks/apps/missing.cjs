// The same from CommonJS.
try {
  require(`@omcp/instrumentation-mcp/frameworks/${process.argv[2]}`);
  console.log(JSON.stringify({ imported: true }));
} catch (error) {
  console.log(JSON.stringify({ name: error.name, message: error.message }));
}
