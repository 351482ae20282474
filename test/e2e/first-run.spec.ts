import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { startBrowserMode, type BrowserModeApp } from './support/browser-mode.js';
import { callBridge } from './support/bridge-client.js';
import { addDeviceEnvironment } from './support/device-environment.js';
import { finishDeviceSignIn } from './support/device-signin.js';
import { saveScreenshot } from './support/screenshots.js';
import { seedOrders } from './support/seed-orders.js';
import { csvFromTemplate, TEMPLATE_ROW, templateHeader } from './support/template-csv.js';
import {
  chooseBatchFile,
  chooseEnvironment,
  localSandbox,
  openSection,
  openWorkspace,
  uniqueSuffix,
} from './support/workspace.js';

// Issue #13: a first run says what to do next on every screen with nothing yet; environments stay put across
// restarts (the chosen one, the sandbox's addresses); an environment can be removed, with what that does said first
// and nothing unfinished lost. Each test starts its own app: a first run needs a data directory nobody used.

test.use({ viewport: { width: 1024, height: 700 } });

let dir: string;
let app: BrowserModeApp | undefined;
test.beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rxbatch-e2e-first-run-'));
});
test.afterEach(async () => {
  await app?.stop();
  app = undefined;
  await rm(dir, { recursive: true, force: true });
});

const start = async () => (app = await startBrowserMode({ dataDir: join(dir, 'data') }));

async function nextSteps(page: Page, title: string) {
  const panel = page.getByRole('region', { name: title });
  await expect(panel).toBeVisible();
  return panel;
}

test('first run: Submissions, Orders, Import and the Log say what to do next', async ({ page }) => {
  const running = await start();
  await openWorkspace(page, running, 'Submissions');

  const submissions = await nextSteps(page, 'Nothing sent from Local sandbox yet');
  // The local sandbox is signed in by the app; the next steps are the template and an import.
  await expect(submissions.getByRole('listitem').nth(0)).toHaveText('Signed in to Local sandbox: done.');
  await expect(submissions.getByRole('button', { name: 'Download the template' })).toBeVisible();
  await expect(submissions.getByRole('link', { name: 'Import the file' })).toHaveAttribute('href', '#/import');
  const download = page.waitForEvent('download');
  await submissions.getByRole('button', { name: 'Download the template' }).click();
  expect((await download).suggestedFilename()).toMatch(/\.csv$/);
  await saveScreenshot(page, 'first-run-submissions');

  await openSection(page, 'Orders');
  await nextSteps(page, 'No orders in Local sandbox yet');
  await saveScreenshot(page, 'first-run-orders');

  await openSection(page, 'Import');
  const batches = page.getByRole('region', { name: 'No batches imported into Local sandbox yet' });
  await expect(batches).toContainText('nothing is sent before you accept');
  await saveScreenshot(page, 'first-run-import');

  await openSection(page, 'Log');
  // Only the app's own steps so far (it started its sandbox and signed in to it).
  const log = await nextSteps(page, 'Nothing done here yet');
  await expect(log).toContainText("So far only Rx Batch's own steps are logged");
  await saveScreenshot(page, 'first-run-log');

  // An environment with no client id yet says where to enter it, then to sign in.
  await chooseEnvironment(page, 'CloudRx sandbox');
  await openSection(page, 'Submissions');
  const remote = await nextSteps(page, 'Nothing sent from CloudRx sandbox yet');
  await expect(remote.getByRole('listitem').nth(0)).toContainText('Enter the client id CloudRx gave you');
  await expect(remote.getByRole('link', { name: 'Settings' })).toHaveAttribute('href', '#/settings');
  await page.emulateMedia({ colorScheme: 'dark' });
  await saveScreenshot(page, 'first-run-submissions-remote-dark');
});

test('a file imported and not accepted: Orders points at its batch, not at importing again', async ({ page }) => {
  const running = await start();
  await openWorkspace(page, running, 'Import');
  const run = uniqueSuffix();
  const header = await templateHeader(running);
  await chooseBatchFile(
    page,
    `waiting-${run}.csv`,
    csvFromTemplate(header, [
      { ...TEMPLATE_ROW, clinicOrderId: `W-${run}-1` },
      { ...TEMPLATE_ROW, clinicOrderId: `W-${run}-2`, homePostCode: 'NOT A POSTCODE' },
    ]),
  );
  await expect(page.getByRole('status').filter({ hasText: 'Imported 2 orders' })).toBeVisible();

  // Submissions lists the batch under "Not accepted yet", and its next steps point there.
  await openSection(page, 'Submissions');
  const sendSteps = await nextSteps(page, 'Nothing sent from Local sandbox yet');
  await expect(sendSteps).toContainText('Open one under “Not accepted yet” below');
  await expect(sendSteps.getByRole('link', { name: 'Import the file' })).toHaveCount(0);

  await openSection(page, 'Orders');
  const steps = await nextSteps(page, 'No orders in Local sandbox yet');
  await expect(steps).toContainText('2 orders in 1 batch are imported and not accepted');
  await expect(steps.getByRole('link', { name: 'Import the file' })).toHaveCount(0);
  const batch = steps.getByRole('link', { name: `Batch 1: waiting-${run}.csv (2 orders, 1 with errors)` });
  await batch.click();
  await expect(page.getByRole('heading', { name: `Preview: waiting-${run}.csv` })).toBeVisible();
});

test('the chosen environment and the sandbox addresses stay put across a restart', async ({
  page,
  browser,
  context,
}) => {
  const first = await start();
  const sandboxBefore = await localSandbox(first);
  await openWorkspace(page, first, 'Submissions');
  await chooseEnvironment(page, 'Local sandbox (device sign-in)');
  await expect(
    page.getByRole('heading', { name: 'Nothing sent from Local sandbox (device sign-in) yet' }),
  ).toBeVisible();
  // Both sign-in methods are there out of the box, on the same sandbox.
  const environments = await callBridge(first, 'environments.list', {});
  expect(environments.find((e) => e.id === 'local-sandbox-device')).toMatchObject({
    grant: 'device',
    running: true,
    apiBaseUrl: sandboxBefore.apiBaseUrl,
  });
  await expect
    .poll(async () => (await callBridge(first, 'environments.chosen', {})).environmentId)
    .toBe('local-sandbox-device');
  // Device sign-in works out of the box: a code, then the sandbox's own sign-in page in a second tab.
  await openSection(page, 'Sign-in');
  await page.getByRole('button', { name: 'Sign in with a code' }).click();
  const complete = page.getByRole('link', { name: 'open the sign-in page with the code filled in' });
  await finishDeviceSignIn(context, (await complete.getAttribute('href')) ?? '', 'allow');
  await expect(page.getByRole('banner').getByRole('status', { name: 'Signed-in identity' })).toHaveText(
    /Signed in as sandbox-admin/,
  );
  await first.stop();
  app = undefined;

  // Another browser profile (nothing kept in the page) on the restarted app: the core remembers.
  const second = await start();
  const other = await browser.newContext({ viewport: { width: 1024, height: 700 } });
  const fresh = await other.newPage();
  try {
    await openWorkspace(fresh, second, 'Submissions');
    await expect(fresh.getByRole('banner').getByLabel('Environment')).toHaveValue('local-sandbox-device');
    const sandboxAfter = await localSandbox(second);
    expect({ api: sandboxAfter.apiBaseUrl, issuer: sandboxAfter.issuer }).toEqual({
      api: sandboxBefore.apiBaseUrl,
      issuer: sandboxBefore.issuer,
    });
    await openSection(fresh, 'Sign-in');
    await saveScreenshot(fresh, 'environment-remembered-signin');
  } finally {
    await other.close();
  }
});

test('a choice an earlier version kept in the page is carried over to the core', async ({ page }) => {
  const running = await start();
  await page.addInitScript(() => {
    if (!sessionStorage.getItem('seeded')) {
      sessionStorage.setItem('seeded', '1');
      localStorage.setItem('rxbatch.environment', 'cloudrx-sandbox');
    }
  });
  await openWorkspace(page, running, 'Submissions');
  await expect(page.getByRole('banner').getByLabel('Environment')).toHaveValue('cloudrx-sandbox');
  await expect
    .poll(async () => (await callBridge(running, 'environments.chosen', {})).environmentId)
    .toBe('cloudrx-sandbox');
  expect(await page.evaluate(() => localStorage.getItem('rxbatch.environment'))).toBeNull();
});

test('an environment is removed only when nothing of it is unfinished, with what that does said first', async ({
  page,
}) => {
  const running = await start();
  const suffix = uniqueSuffix();
  const name = `Spare ${suffix}`;
  const spare = await addDeviceEnvironment(running, name);
  // Not signed in: its accepted orders wait, unsent.
  await seedOrders(running, spare.id, { count: 2, prefix: `RM-${suffix}` });

  await openWorkspace(page, running, 'Settings');
  const environments = page.getByRole('region', { name: 'Environments' });
  // The app's own sandboxes are not removable.
  await expect(environments.getByRole('button', { name: 'Remove Local sandbox', exact: true })).toHaveCount(0);
  await environments.getByRole('button', { name: `Remove ${name}` }).click();
  const notYet = page.getByRole('dialog', { name: `${name} cannot be removed yet` });
  await expect(notYet).toContainText('2 orders not sent yet');
  await saveScreenshot(page, 'environment-remove-refused');
  await notYet.getByRole('button', { name: 'Close' }).click();
  await expect(notYet).toHaveCount(0);

  // Withdrawn (cancelled before sending): nothing of it is unfinished any more.
  const queued = await callBridge(running, 'orders.list', { environmentId: spare.id });
  await callBridge(running, 'orders.cancel', { orderIds: queued.orders.map((o) => o.id), reason: 'Not needed' });
  await expect
    .poll(async () => (await callBridge(running, 'environments.removal', { environmentId: spare.id })).removable)
    .toBe(true);

  await environments.getByRole('button', { name: `Remove ${name}` }).click();
  const question = page.getByRole('dialog', { name: `Remove ${name}?` });
  await expect(question).toContainText('signs it out and deletes its saved sign-in');
  await expect(question).toContainText('Its 2 orders are kept with their history and audit entries');
  // Saying no is the default.
  await expect(question.getByRole('button', { name: 'Keep it' })).toBeFocused();
  await saveScreenshot(page, 'environment-remove-question');
  await question.getByRole('button', { name: 'Remove environment' }).click();
  await expect(page.getByRole('status').filter({ hasText: `Removed ${name}.` })).toBeVisible();
  await expect(environments.getByRole('row', { name: new RegExp(name) })).toHaveCount(0);
  await expect(page.getByRole('banner').getByLabel('Environment')).not.toContainText(name);

  // The log keeps its orders' entries and says who removed it.
  const log = await callBridge(running, 'log.list', { action: 'environment.removed' });
  expect(log.entries[0]).toMatchObject({ actor: 'user', environmentId: spare.id });
  const kept = await callBridge(running, 'log.list', { environmentId: spare.id, action: 'order.' });
  expect(kept.entries.length).toBeGreaterThan(0);
});
