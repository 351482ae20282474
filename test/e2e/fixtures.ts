import { test as base } from '@playwright/test';
import { startBrowserMode, type BrowserModeApp } from './support/browser-mode.js';

/** One browser-mode app (core, local sandbox, bridge) per worker, stopped when the worker ends. */
export const test = base.extend<object, { app: BrowserModeApp }>({
  app: [
    // eslint-disable-next-line no-empty-pattern -- Playwright requires the fixtures argument to be destructured.
    async ({}, use) => {
      const app = await startBrowserMode();
      try {
        await use(app);
      } finally {
        await app.stop();
      }
    },
    { scope: 'worker', timeout: 90_000 },
  ],
});

export { expect } from '@playwright/test';
