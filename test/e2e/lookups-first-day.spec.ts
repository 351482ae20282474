import { PRODUCTS } from '../../sandbox/catalogue.js';
import { expect, test } from './fixtures.js';
import { setSandboxFaults } from './support/sandbox-http.js';
import { saveScreenshot } from './support/screenshots.js';
import { localSandbox, openWorkspace } from './support/workspace.js';

/**
 * Lookups as a first-day admin meets them: a code the service does not know, or a service that does not answer,
 * is said once (stock and price are asked together, and fail together) and says what to try; a search that finds
 * nothing says what to search for instead.
 */

test('a stock and price check that fails says so once, in words, with what to try', async ({ app, page }) => {
  const local = await localSandbox(app);
  await openWorkspace(page, app, 'Lookups');
  const check = page.getByRole('region', { name: 'Stock and price' });
  const unknown = '1234567';
  expect(PRODUCTS.some((product) => product.dmdCode === unknown)).toBe(false);
  await check.getByLabel('dm+d code').fill(unknown);
  await check.getByRole('button', { name: 'Check stock and price' }).click();
  const result = check.getByRole('status', { name: 'Stock and price result' });
  await expect(result.getByRole('alert')).toHaveCount(1);
  await expect(result.getByRole('alert')).toContainText(`No product has dm+d code ${unknown} at this service`);
  await expect(result.getByRole('alert')).toContainText('search for the product by name');
  // The service's own words are marked as its own, under the sentence that says what to do.
  await expect(result.getByRole('alert')).toContainText('The service said:');
  await saveScreenshot(page, 'lookups-unknown-code');

  // A pack count out of range is said beside the field, not only by a greyed-out button.
  const packs = check.getByLabel('Number of packs');
  await packs.fill('0');
  await expect(check.getByRole('alert').filter({ hasText: 'A whole number of packs from 1 to 10,000.' })).toBeVisible();
  await expect(check.getByRole('button', { name: 'Check stock and price' })).toBeDisabled();
  await packs.fill('2');
  await expect(check.getByText('A whole number of packs from 1 to 10,000.')).toHaveCount(0);

  await setSandboxFaults(local, { outage: true });
  try {
    await check.getByLabel('dm+d code').fill(PRODUCTS[0]!.dmdCode);
    await check.getByRole('button', { name: 'Check stock and price' }).click();
    await expect(result.getByRole('alert')).toHaveCount(1);
    await expect(result.getByRole('alert')).toContainText('try again');
    await expect(result).not.toContainText('In stock');
  } finally {
    await setSandboxFaults(local, { outage: false });
  }
});

test('a product search that finds nothing says what to try instead', async ({ app, page }) => {
  await openWorkspace(page, app, 'Lookups');
  const search = page.getByRole('region', { name: 'Product search' });
  const status = search.getByRole('status');
  const run = async (term: string) => {
    await search.getByLabel('Product name or dm+d code').fill(term);
    await search.getByRole('button', { name: 'Search', exact: true }).click();
    await expect(status).toContainText(`“${term}”`);
  };

  await run('Paracetamoll');
  await expect(status).toContainText('0 products match “Paracetamoll”.');
  await expect(status).toContainText('Try the start of the name, such as “Para”');
  await search.getByLabel('Product name or dm+d code').fill('Para');
  await search.getByRole('button', { name: 'Search', exact: true }).click();
  await expect(search.getByRole('row', { name: /Paracetamol/ }).first()).toBeVisible();

  // Part of a code finds nothing: the hint says why it cannot be whole, and that a code is found only whole.
  const code = PRODUCTS[0]!.dmdCode;
  await run(code.slice(0, 8));
  await expect(status).toContainText('This is not a whole dm+d code');
  await expect(status).toContainText('a code is found only whole');
  await run(code);
  await expect(status).toContainText('1 product matches');
  // A whole, well-formed code the service does not list (the template's example): no hunt for a typo.
  await run('42109611000001109');
  await expect(status).toContainText("this service's catalogue does not list it");
  await expect(status).not.toContainText('check its digits');

  await run('paracetamol tablets');
  await expect(status).toContainText('try one word, such as “paracetamol”');
  await saveScreenshot(page, 'lookups-no-match');
});

test('lookups by keyboard: Search keeps the keyboard, and a picked product’s answer is brought into view', async ({
  app,
  page,
}) => {
  await page.setViewportSize({ width: 1024, height: 700 });
  await openWorkspace(page, app, 'Lookups');
  const search = page.getByRole('region', { name: 'Product search' });
  await search.getByLabel('Product name or dm+d code').fill('tablets');
  const button = search.getByRole('button', { name: 'Search', exact: true });
  await button.click();
  const rows = search.getByRole('button', { name: /^Check stock and price of / });
  await expect(rows.nth(5)).toBeVisible();
  // Disabled while the service answered, the button has the keyboard again, not the page.
  await expect(button).toBeFocused();

  // The last of a long list: its answer is far below, in the stock and price panel.
  await rows.last().click();
  const result = page.getByRole('region', { name: 'Stock and price' }).getByRole('status', {
    name: 'Stock and price result',
  });
  await expect(result).toContainText(/In stock|Out of stock/);
  await expect(result).toBeFocused();
  await expect(result).toBeInViewport();
});
