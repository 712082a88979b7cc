import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Tests run the sources: the data-model package's name resolves to its one copy in src/tool-failure
// (as tsconfig.json's paths do for the typecheck), so a test and the module under test share it.
const source = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@omcp\/tool-failure$/, replacement: source('./src/tool-failure/index.ts') },
      {
        find: /^@omcp\/tool-failure\/internal$/,
        replacement: source('./src/tool-failure/internal.ts'),
      },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
