import type { Page } from '@playwright/test';

/**
 * Drives the sandbox's device sign-in pages the way a person would, by role and accessible name. Shared by the
 * identity tests and the app's auth tests (and usable from e2e tests).
 */
export interface DevicePagesRun {
  /** verification_uri_complete, or verification_uri together with `userCode`. */
  url: string;
  userCode?: string;
  username: string;
  password: string;
  decision: 'allow' | 'deny';
}

export async function completeDevicePages(page: Page, run: DevicePagesRun): Promise<void> {
  await page.goto(run.url);
  if (run.userCode !== undefined) await enterUserCode(page, run.userCode);
  await page.getByRole('heading', { name: 'Check the code' }).waitFor();
  await page.getByRole('button', { name: 'Continue' }).click();
  await signIn(page, run.username, run.password);
  await page.getByRole('heading', { name: /^Allow / }).waitFor();
  if (run.decision === 'allow') {
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByRole('heading', { name: 'You are signed in' }).waitFor();
  } else {
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.getByRole('status').filter({ hasText: 'Sign-in was cancelled' }).waitFor();
  }
}

export async function enterUserCode(page: Page, userCode: string): Promise<void> {
  await page.getByLabel('Code shown in Rx Batch').fill(userCode);
  await page.getByRole('button', { name: 'Continue' }).click();
}

export async function signIn(page: Page, username: string, password: string): Promise<void> {
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
