// Imports the adapter named by the first argument; prints the error's name and message, or
// "imported" when the import went through.
try {
  await import(`@omcp/instrumentation-mcp/frameworks/${process.argv[2]}`);
  console.log('imported');
} catch (e) {
  console.log(`${e.name}: ${e.message}`);
}
