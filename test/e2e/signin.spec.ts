import { DEVICE_CLIENT_ID } from '../../sandbox/identity/provider-config.js';
import { expect, test } from './fixtures.js';
import { addDeviceEnvironment } from './support/device-environment.js';
import { finishDeviceSignIn } from './support/device-signin.js';
import { saveScreenshot } from './support/screenshots.js';
import { chooseEnvironment, localSandbox, openSection, openWorkspace, uniqueSuffix } from './support/workspace.js';

test('device sign-in: a large code to copy, its link, a QR code and a countdown; finished in a second tab', async ({
  app,
  page,
  context,
}) => {
  const local = await localSandbox(app);
  const suffix = uniqueSuffix();
  const name = `Sandbox by device ${suffix}`;

  // The environment is added the way an admin would: in Settings.
  await openWorkspace(page, app, 'Settings');
  await page.getByRole('button', { name: 'Add environment' }).click();
  const form = page.getByRole('form', { name: 'Add an environment' });
  await form.getByLabel('Id', { exact: true }).fill(`device-${suffix.toLowerCase()}`);
  await form.getByLabel('Name', { exact: true }).fill(name);
  await form.getByLabel('API base URL').fill(local.apiBaseUrl);
  await form.getByLabel('Identity server (issuer)').fill(local.issuer);
  await form.getByLabel('Client id').fill(DEVICE_CLIENT_ID);
  await form.getByLabel('Sign-in method').selectOption({ label: 'Device sign-in' });
  await form.getByRole('button', { name: 'Save new environment' }).click();
  await expect(page.getByRole('status').filter({ hasText: `Saved ${name}.` })).toBeVisible();

  await chooseEnvironment(page, name);
  const identity = page.getByRole('banner').getByRole('status', { name: 'Signed-in identity' });
  await expect(identity).toHaveText(/Not signed in/);
  await openSection(page, 'Sign-in');
  await page.getByRole('button', { name: 'Sign in with a code' }).click();

  const code = page.getByRole('status', { name: 'Sign-in code' });
  await expect(code).toHaveText(/^[A-Z0-9-]{6,}$/);
  // The code replaced the button that asked for it: the keyboard is on the code's first button.
  await expect(page.getByRole('button', { name: 'Copy code' })).toBeFocused();
  // The state says what the header says (signing in), not "Not signed in", while the code waits.
  const signInPanel = page.getByRole('region', { name: `Sign-in to ${name}` });
  await expect(signInPanel).toContainText('Signing in: waiting for the code below to be entered');
  await expect(signInPanel).not.toContainText('Not signed in');
  const userCode = (await code.textContent()) ?? '';
  await expect(page.getByRole('img', { name: /QR code of the sign-in page/ })).toBeVisible();
  await expect(page.getByRole('timer')).toHaveText(/^\d+:\d\d$/);
  await expect(page.getByRole('timer')).toHaveAccessibleName(/Code expires in \d+ minutes?/);
  await expect(page.getByText(/checking every 1 second/)).toBeVisible();
  const verification = page.getByRole('link', { name: /\/device$/ });
  await expect(verification).toHaveAttribute('href', new RegExp(`^${local.issuer}`));

  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.origin });
  await page.getByRole('button', { name: 'Copy code' }).click();
  await expect(page.getByText('Copied.')).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(userCode);
  await saveScreenshot(page, 'signin-device-code');

  const complete = page.getByRole('link', { name: 'open the sign-in page with the code filled in' });
  await finishDeviceSignIn(context, (await complete.getAttribute('href')) ?? '', 'allow');

  await expect(page.getByRole('status').filter({ hasText: '✓ Signed in.' })).toBeVisible();
  await expect(identity).toHaveText(/Signed in as sandbox-admin/);
  await expect(page.getByRole('region', { name: `Sign-in to ${name}` })).toContainText('Signed in as sandbox-admin');
  await saveScreenshot(page, 'signin-done');

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(identity).toHaveText(/Not signed in/);
});

test('a denied device sign-in says so plainly, and a cancelled one stops waiting', async ({ app, page, context }) => {
  const suffix = uniqueSuffix();
  const environment = await addDeviceEnvironment(app, `Deny test ${suffix}`);
  await openWorkspace(page, app);
  await chooseEnvironment(page, environment.name);
  await openSection(page, 'Sign-in');

  await page.getByRole('button', { name: 'Sign in with a code' }).click();
  const complete = page.getByRole('link', { name: 'open the sign-in page with the code filled in' });
  await finishDeviceSignIn(context, (await complete.getAttribute('href')) ?? '', 'deny');
  await expect(page.getByRole('alert')).toContainText('Sign-in was denied.');
  await expect(page.getByRole('status', { name: 'Sign-in code' })).toHaveCount(0);

  await page.getByRole('button', { name: 'Start again' }).click();
  await expect(page.getByRole('status', { name: 'Sign-in code' })).toBeVisible();
  await page.getByRole('button', { name: 'Cancel sign-in' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Sign-in was cancelled.' })).toBeVisible();
  await expect(page.getByRole('banner').getByRole('status', { name: 'Signed-in identity' })).toHaveText(
    /Not signed in/,
  );
});

test('the local sandbox shows its service account, and the connection can be checked from sign-in', async ({
  app,
  page,
}) => {
  await openWorkspace(page, app, 'Sign-in');
  await expect(page.getByRole('banner').getByRole('status', { name: 'Signed-in identity' })).toHaveText(/Signed in as/);
  await page.getByRole('button', { name: 'Sign in again' }).click();
  await expect(page.getByRole('status').filter({ hasText: '✓ Signed in.' })).toBeVisible();
  const connection = page.getByRole('region', { name: 'Connection' });
  await connection.getByRole('button', { name: 'Check connection' }).click();
  await expect(connection.getByRole('status')).toContainText(/Order Service\s*Reachable \(\d+ ms\)/);
  // Disabled while it checked, the button has the keyboard again.
  await expect(connection.getByRole('button', { name: 'Check connection' })).toBeFocused();
});
