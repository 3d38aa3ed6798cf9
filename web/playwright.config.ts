import { defineConfig } from '@playwright/test';

// Debian's chromium from apt: Playwright never downloads a browser here.
const chromium = {
  browserName: 'chromium' as const,
  launchOptions: {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  },
};

const bench = Boolean(process.env.KUBEOPERA_BENCH);

export default defineConfig({
  testDir: './e2e',
  globalSetup: './e2e/global-setup.ts',
  globalTeardown: './e2e/global-teardown.ts',
  // One stack, shared: tests run one at a time on a loaded machine.
  workers: 1,
  fullyParallel: false,
  timeout: 180_000,
  expect: { timeout: 30_000 },
  reporter: [['list']],
  use: { ...chromium, trace: 'off', screenshot: 'only-on-failure', viewport: { width: 1280, height: 900 } },
  projects: bench
    ? [{ name: 'bench', testMatch: /bench\.spec\.ts/ }]
    : [{ name: 'e2e', testIgnore: /bench\.spec\.ts/ }],
});
