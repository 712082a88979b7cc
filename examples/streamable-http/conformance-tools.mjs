// The fixture tools the official MCP conformance suite (@modelcontextprotocol/conformance, server
// mode) calls, written from the suite's scenario descriptions.
const RED_PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
// A RIFF/WAVE header with no samples: the smallest valid WAV file.
const EMPTY_WAV = Buffer.from(
  '524946462400000057415645666d7420100000000100010044ac000088580100020010006461746100000000',
  'hex',
).toString('base64');

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Registers the conformance fixture tools on an McpServer (with the logging capability). */
export function registerConformanceTools(server) {
  const embedded = {
    type: 'resource',
    resource: {
      uri: 'test://embedded-resource',
      mimeType: 'text/plain',
      text: 'This is an embedded resource content.',
    },
  };
  const image = { type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' };

  server.registerTool('test_simple_text', { description: 'Returns simple text.' }, async () => ({
    content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
  }));
  server.registerTool('test_image_content', { description: 'Returns an image.' }, async () => ({
    content: [image],
  }));
  server.registerTool('test_audio_content', { description: 'Returns audio.' }, async () => ({
    content: [{ type: 'audio', data: EMPTY_WAV, mimeType: 'audio/wav' }],
  }));
  server.registerTool(
    'test_embedded_resource',
    { description: 'Returns an embedded resource.' },
    async () => ({ content: [embedded] }),
  );
  server.registerTool(
    'test_multiple_content_types',
    { description: 'Returns text, an image and a resource.' },
    async () => ({
      content: [{ type: 'text', text: 'Multiple content types test:' }, image, embedded],
    }),
  );
  server.registerTool(
    'test_tool_with_logging',
    { description: 'Sends three log messages while it runs.' },
    async (extra) => {
      for (const [i, data] of [
        'Tool execution started',
        'Tool processing data',
        'Tool execution completed',
      ].entries()) {
        if (i > 0) await pause(50);
        await extra.sendNotification({
          method: 'notifications/message',
          params: { level: 'info', data },
        });
      }
      return { content: [{ type: 'text', text: 'Tool with logging executed successfully' }] };
    },
  );
  server.registerTool(
    'test_tool_with_progress',
    { description: 'Reports progress 0, 50, 100 of 100.' },
    async (extra) => {
      const progressToken = extra._meta?.progressToken;
      for (const progress of [0, 50, 100]) {
        if (progress > 0) await pause(50);
        if (progressToken !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken, progress, total: 100 },
          });
        }
      }
      return { content: [{ type: 'text', text: 'Tool with progress executed successfully' }] };
    },
  );
  // A plain throw, as the suite asks. Instrumented, the client also gets a classified failure.
  server.registerTool('test_error_handling', { description: 'Always fails.' }, async () => {
    throw new Error('This tool intentionally returns an error for testing');
  });
}
