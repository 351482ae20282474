import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { test as base, expect, type BrowserContext, type Page } from '@playwright/test';
import { ORDER_SERVICE_SCOPES, type EnvironmentView } from '../../../shared/environment.js';
import { DEVICE_CLIENT_ID } from '../../sandbox/identity/provider-config.js';
import { callBridge } from './bridge-client.js';
import { REPO_ROOT, startBrowserMode, type BrowserModeApp } from './browser-mode.js';

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

export async function localSandbox(app: BrowserModeApp): Promise<EnvironmentView> {
  const environments = await callBridge(app, 'environments.list', {});
  const local = environments.find((environment) => environment.kind === 'local-sandbox');
  if (!local?.running) throw new Error('the local sandbox is not running in browser mode');
  return local;
}

/**
 * An environment that signs in with a device code against the app's own local sandbox (the built-in local
 * sandbox entry uses client credentials). Added through the contract, as the Settings screen adds one; saving it
 * starts its sending and status tracking. Polls statuses every 5 s, the shortest the profile allows.
 */
export async function addDeviceEnvironment(app: BrowserModeApp, name: string): Promise<EnvironmentView> {
  const local = await localSandbox(app);
  const { running: _running, ...profile } = local;
  const id = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 40);
  return callBridge(app, 'environments.save', {
    create: true,
    environment: {
      ...profile,
      id,
      name,
      kind: 'remote',
      clientId: DEVICE_CLIENT_ID,
      grant: 'device',
      scopes: [...ORDER_SERVICE_SCOPES],
      pollIntervalMs: 5_000,
    },
  });
}

/** Chooses the environment in the header. */
export async function selectEnvironment(page: Page, name: string): Promise<void> {
  await page.getByRole('banner').getByRole('combobox', { name: 'Environment' }).selectOption({ label: name });
}

/** Console errors and uncaught exceptions (a CSP violation included). */
export function collectPageProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return problems;
}

/** A full-page screenshot into test-results/, and into docs/screenshots/ with UPDATE_DOC_SCREENSHOTS=1. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(join(REPO_ROOT, 'test-results'), { recursive: true });
  const shot = join(REPO_ROOT, 'test-results', `${name}.png`);
  await page.screenshot({ path: shot, fullPage: true });
  if (process.env.UPDATE_DOC_SCREENSHOTS) {
    await mkdir(join(REPO_ROOT, 'docs', 'screenshots'), { recursive: true });
    await copyFile(shot, join(REPO_ROOT, 'docs', 'screenshots', `${name}.png`));
  }
}

/** Opens a workspace section by its link in the navigation. */
export async function openSection(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name, exact: true }).click();
  await expect(page.getByRole('heading', { level: 2, name })).toBeVisible();
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
  const second = await context.newPage();
  try {
    await second.goto(url);
    await second.getByRole('button', { name: 'Continue' }).click();
    const hint = await second.getByText(/Local sandbox account:/).textContent();
    const [, username = '', password = ''] = /username "([^"]+)", password "([^"]+)"/.exec(hint ?? '') ?? [];
    await second.getByLabel('Username').fill(username);
    await second.getByLabel('Password').fill(password);
    await second.getByRole('button', { name: 'Sign in' }).click();
    await second.getByRole('button', { name: 'Allow' }).click();
    await second.getByRole('heading', { name: 'You are signed in' }).waitFor();
  } finally {
    await second.close();
  }
  await expect(page.getByText('✓ Signed in', { exact: false }).first()).toBeVisible({ timeout: 20_000 });
}

/** Orders the sandbox holds (`GET /__sandbox/orders`), its own record of what arrived. */
export async function sandboxOrders(environment: EnvironmentView): Promise<Array<Record<string, unknown>>> {
  const response = await fetch(new URL('__sandbox/orders', environment.apiBaseUrl));
  if (!response.ok) throw new Error(`GET /__sandbox/orders answered ${response.status}`);
  return (await response.json()) as Array<Record<string, unknown>>;
}
