import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './test/support/browser.js';

/**
 * End-to-end tests against the built app (`npm run build` first): browser mode in Debian's Chromium, the Electron
 * shell where its binary exists, and the packaged layout (electron-builder with a stand-in Electron binary). One
 * worker: each worker starts a whole app with its own sandbox.
 */
export default defineConfig({
  testDir: 'test/e2e',
  outputDir: 'test-results',
  workers: 1,
  retries: 0,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    headless: true,
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
    screenshot: 'on',
    trace: 'retain-on-failure',
  },
});
