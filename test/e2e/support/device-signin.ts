import type { BrowserContext } from '@playwright/test';
import { signIn } from '../../../sandbox/identity/device-pages-driver.js';

/**
 * A person finishing a device sign-in on the identity server's pages, in a second tab: the code is already in
 * the link, the account is the one the sandbox's login page prints, then Allow or Deny.
 */
export async function finishDeviceSignIn(
  context: BrowserContext,
  url: string,
  decision: 'allow' | 'deny',
): Promise<void> {
  const page = await context.newPage();
  try {
    await page.goto(url);
    await page.getByRole('heading', { name: 'Check the code' }).waitFor();
    await page.getByRole('button', { name: 'Continue' }).click();
    const hint = await page.getByText(/Local sandbox account:/).textContent();
    const [, username = '', password = ''] = /username "([^"]+)", password "([^"]+)"/.exec(hint ?? '') ?? [];
    await signIn(page, username, password);
    await page.getByRole('heading', { name: /^Allow / }).waitFor();
    await page.getByRole('button', { name: decision === 'allow' ? 'Allow' : 'Deny' }).click();
    if (decision === 'allow') await page.getByRole('heading', { name: 'You are signed in' }).waitFor();
    else await page.getByRole('status').filter({ hasText: 'Sign-in was cancelled' }).waitFor();
  } finally {
    await page.close();
  }
}
