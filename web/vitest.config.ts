import { defineConfig } from 'vitest/config';

// Unit tests of the dashboard's pure pieces, beside the Playwright suite
// (e2e/, which needs a running server and is not Vitest's).
export default defineConfig({
  test: {
    include: ['src/**/*.test.{ts,tsx}'],
    environment: 'node',
  },
});
