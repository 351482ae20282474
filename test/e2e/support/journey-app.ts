import { test as base, expect, type BrowserContext, type Page } from '@playwright/test';
import { startBrowserMode, type BrowserModeApp } from './browser-mode.js';
import { finishDeviceSignIn } from './device-signin.js';
import { openSection } from './workspace.js';

/**
 * The journeys' app: browser mode as `npm run start:browser` runs it, with the local sandbox moving orders one
 * status on every `RXBATCH_SANDBOX_STEP_MS`, so a journey sees orders dispatched within seconds. One per worker.
 */
export const SANDBOX_STEP_MS = 4_000;

async function startJourneyApp(): Promise<BrowserModeApp> {
  // startBrowserMode passes its process's environment to the app: set the step only for that spawn.
  const previous = process.env.RXBATCH_SANDBOX_STEP_MS;
  process.env.RXBATCH_SANDBOX_STEP_MS = String(SANDBOX_STEP_MS);
  try {
    return await startBrowserMode();
  } finally {
    if (previous === undefined) delete process.env.RXBATCH_SANDBOX_STEP_MS;
    else process.env.RXBATCH_SANDBOX_STEP_MS = previous;
  }
}

export const test = base.extend<object, { app: BrowserModeApp }>({
  app: [
    // eslint-disable-next-line no-empty-pattern -- Playwright requires the fixtures argument to be destructured.
    async ({}, use) => {
      const app = await startJourneyApp();
      try {
        await use(app);
      } finally {
        await app.stop();
      }
    },
    { scope: 'worker', timeout: 90_000 },
  ],
});

export { expect };

/** Console errors and uncaught exceptions (a CSP violation included). */
export function collectPageProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return problems;
}

/**
 * Device sign-in through the Sign-in screen: start it, then finish the sandbox's verification pages in a second
 * page the way a person would (the account is the one the sandbox's login page prints).
 */
export async function signInWithDeviceCode(page: Page, context: BrowserContext): Promise<void> {
  await openSection(page, 'Sign-in');
  await page.getByRole('button', { name: /^Sign in (with a code|again)$/ }).click();
  const link = page.getByRole('link', { name: 'open the sign-in page with the code filled in' });
  const url = await link.getAttribute('href');
  if (!url) throw new Error('the sign-in screen shows no verification link');
  await finishDeviceSignIn(context, url, 'allow');
  await expect(page.getByText('✓ Signed in', { exact: false }).first()).toBeVisible({ timeout: 20_000 });
}
