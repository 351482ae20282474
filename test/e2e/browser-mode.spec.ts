import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.js';
import { sandboxCourierList, searchSandboxProducts, setSandboxFaults } from './support/sandbox-http.js';
import { saveScreenshot } from './support/screenshots.js';
import { escapeRegExp, localSandbox, openSection } from './support/workspace.js';

/** Console errors and uncaught exceptions, which include any Content-Security-Policy violation. */
function collectPageProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return problems;
}

test('shows the local sandbox in use, checks the connection and lists the sandbox courier prices', async ({
  app,
  page,
  context,
}) => {
  const problems = collectPageProblems(page);
  const local = await localSandbox(app);
  const expected = await sandboxCourierList(context, local);
  expect(expected.map((courier) => courier.courierCode)).toContain('RMT24');

  await page.goto(app.url);
  await expect(page.getByRole('heading', { level: 1, name: 'Rx Batch' })).toBeVisible();
  await expect(page.getByRole('banner')).toContainText('Browser mode');
  // The launch secret leaves the address bar as soon as the page has read it.
  expect(page.url()).toBe(`${app.origin}/`);

  // The workspace acts on the running local sandbox from the start, and says who is signed in to it.
  await expect(page.getByRole('banner').getByLabel('Environment')).toHaveValue(local.id);
  await expect(page.getByRole('banner').getByRole('status', { name: 'Signed-in identity' })).toHaveText(/Signed in/);
  await openSection(page, 'Settings');
  const environments = page.getByRole('region', { name: 'Environments' });
  const localRow = environments.getByRole('row').filter({
    has: page.getByRole('rowheader', { name: new RegExp(`^${escapeRegExp(local.name)}( \\(in use\\))?$`) }),
  });
  await expect(localRow).toContainText('Running');
  await expect(localRow).toContainText(local.apiBaseUrl);
  await expect(localRow).toContainText('(in use)');

  await openSection(page, 'Lookups');
  const prices = page.getByRole('region', { name: 'Courier price list' }).getByRole('table');
  await expect(prices.getByRole('row')).toHaveCount(expected.length + 1);
  for (const courier of expected) {
    const row = prices.getByRole('row', { name: new RegExp(`^${escapeRegExp(courier.courierCode)}\\b`) });
    await expect(row).toContainText(courier.deliveryOption);
    const price = new Intl.NumberFormat('en-GB', { style: 'currency', currency: courier.currencyCode });
    await expect(row.getByRole('cell').last()).toHaveText(price.format(courier.price));
  }

  await openSection(page, 'Sign-in');
  const connection = page.getByRole('region', { name: 'Connection' });
  await connection.getByRole('button', { name: 'Check connection' }).click();
  const report = connection.getByRole('status');
  await expect(report).toContainText(/Order Service\s*Reachable \(\d+ ms\)/);
  await expect(report).toContainText(/Identity server\s*Reachable/);
  await expect(report).toContainText('client credentials');

  await saveScreenshot(page, 'foundation');

  // A reload still connects (the secret was kept in this tab's sessionStorage) and stays on the same screen.
  await page.reload();
  await expect(page.getByRole('heading', { level: 2, name: 'Sign-in' })).toBeVisible();
  await expect(page.getByRole('banner').getByLabel('Environment')).toHaveValue(local.id);
  expect(problems).toEqual([]);
});

test('at 1024×700 the header is one row: the version and front end beside the widest environment and the identity', async ({
  page,
  app,
}) => {
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.goto(app.url);
  const banner = page.getByRole('banner');
  const identity = banner.getByRole('status', { name: 'Signed-in identity' });
  await expect(identity).toHaveText(/Signed in as the service account/);
  const meta = banner.getByText(/^Version /);
  const [top, version] = [await identity.boundingBox(), await meta.boundingBox()];
  // The version's line overlaps the identity's: the same row, not one of its own below it.
  expect(version!.y).toBeLessThan(top!.y + top!.height);
  expect(version!.y + version!.height).toBeGreaterThan(top!.y);
  await expect(banner).toContainText('Browser mode');
  await saveScreenshot(page, 'header-1024');
});

test('product search shows an 18-digit dm+d code exactly', async ({ app, page }) => {
  const local = await localSandbox(app);
  const fromSandbox = await searchSandboxProducts(local, 'tablet');
  const product = fromSandbox.find((candidate) => candidate.dmdCode.length === 18);
  if (!product) throw new Error('the sandbox catalogue has no product with an 18-digit dm+d code matching "tablet"');
  // Beyond 2^53: a code that went through a JavaScript number would come out different.
  expect(BigInt(product.dmdCode) > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);

  await page.goto(app.url);
  await openSection(page, 'Lookups');
  const search = page.getByRole('region', { name: 'Product search' });
  await search.getByLabel('Product name or dm+d code').fill(product.name);
  await search.getByRole('button', { name: 'Search', exact: true }).click();
  const row = search.getByRole('row', { name: new RegExp(escapeRegExp(product.name)) });
  await expect(row.getByRole('cell').first()).toHaveText(product.dmdCode);
  await expect(search.getByRole('status')).toContainText('match');
});

test('a page without the launch secret says how to open Rx Batch', async ({ app, browser }) => {
  // A fresh context: no sessionStorage from an earlier visit.
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${app.origin}/`);
    await expect(page.getByRole('alert')).toContainText('the address Rx Batch printed');
  } finally {
    await context.close();
  }
});

test('a failing service shows a plain sentence, and the prices come back on refresh', async ({ app, page }) => {
  const local = await localSandbox(app);
  await page.goto(app.url);
  await openSection(page, 'Lookups');
  const couriers = page.getByRole('region', { name: 'Courier price list' });
  await expect(couriers.getByRole('table')).toBeVisible();

  await setSandboxFaults(local, { errorRate: 1 });
  try {
    await couriers.getByRole('button', { name: 'Refresh prices' }).click();
    await expect(couriers.getByRole('alert')).toContainText('The service is unavailable, try again.');
    await expect(couriers.getByRole('table')).toHaveCount(0);
  } finally {
    await setSandboxFaults(local, { errorRate: 0 });
  }
  await couriers.getByRole('button', { name: 'Refresh prices' }).click();
  await expect(couriers.getByRole('table')).toBeVisible();
  await expect(couriers.getByRole('alert')).toHaveCount(0);
});
