import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'shared/**/*.test.ts',
      'main/**/*.test.ts',
      'sandbox/**/*.test.ts',
      'test/**/*.test.ts',
      'renderer/**/*.test.ts',
    ],
    exclude: ['test/e2e/**', 'node_modules/**'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Sandboxes bind loopback ports and SQLite files; two cores: keep parallelism modest.
    maxWorkers: 2,
  },
});
