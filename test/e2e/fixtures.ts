import { test as base } from '@playwright/test';
import { LOCAL_SANDBOX_ID } from '../../main/core/environments/presets.js';
import { callBridge } from './support/bridge-client.js';
import { startBrowserMode, type BrowserModeApp } from './support/browser-mode.js';

/**
 * Seconds per status step of the local sandbox in the e2e app: fast enough that an order reaches "Prescription
 * Dispatched" (three steps) within a test, slow enough that a cancel sent right after creation still lands first.
 */
export const SANDBOX_STEP_MS = 2500;

/**
 * One browser-mode app (core, local sandbox, bridge) per worker, stopped when the worker ends. Specs share it,
 * so each uses its own clinic order ids and environments.
 */
export const test = base.extend<{ localSandboxChosen: void }, { app: BrowserModeApp }>({
  app: [
    // eslint-disable-next-line no-empty-pattern -- Playwright requires the fixtures argument to be destructured.
    async ({}, use) => {
      const app = await startBrowserMode({ env: { RXBATCH_SANDBOX_STEP_MS: String(SANDBOX_STEP_MS) } });
      try {
        await use(app);
      } finally {
        await app.stop();
      }
    },
    { scope: 'worker', timeout: 90_000 },
  ],
  // The core remembers the environment chosen last (issue #13), across the pages of specs sharing this app: each
  // test starts as a first visit does, on the local sandbox.
  localSandboxChosen: [
    async ({ app }, use) => {
      await callBridge(app, 'environments.choose', { environmentId: LOCAL_SANDBOX_ID });
      await use();
    },
    { auto: true },
  ],
});

export { expect } from '@playwright/test';
