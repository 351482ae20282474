import { PRODUCTS } from '../../sandbox/catalogue.js';
import { expect, test } from './fixtures.js';
import { saveScreenshot } from './support/screenshots.js';
import { escapeRegExp, openWorkspace } from './support/workspace.js';

const money = (amount: number) => new Intl.NumberFormat('en-GB', { style: 'currency', currency: 'GBP' }).format(amount);

test('lookups: find a product, check its stock and the price of several packs, see courier prices', async ({
  app,
  page,
}) => {
  const inStock = PRODUCTS.find((product) => product.stock > 0 && product.dmdCode.length === 17)!;
  const outOfStock = PRODUCTS.find((product) => product.stock === 0)!;
  await openWorkspace(page, app, 'Lookups');

  const search = page.getByRole('region', { name: 'Product search' });
  await search.getByLabel('Product name or dm+d code').fill(inStock.name);
  await search.getByRole('button', { name: 'Search', exact: true }).click();
  const row = search.getByRole('row', { name: new RegExp(escapeRegExp(inStock.name)) });
  await expect(row.getByRole('cell').first()).toHaveText(inStock.dmdCode);
  await row.getByRole('button', { name: `Check stock and price of ${inStock.name}` }).click();

  const check = page.getByRole('region', { name: 'Stock and price' });
  await expect(check.getByLabel('dm+d code')).toHaveValue(inStock.dmdCode);
  // The row's button checks at once, for one pack; the form asks again for more.
  const result = check.getByRole('status', { name: 'Stock and price result' });
  await expect(result).toContainText(inStock.name);
  await expect(result).toContainText('✓ In stock');
  await expect(result).toContainText(`1 pack: ${money(inStock.unitPrice)}`);
  await expect(check).toContainText('not how many packs');
  await check.getByLabel('Number of packs').fill('3');
  await check.getByRole('button', { name: 'Check stock and price' }).click();
  await expect(result).toContainText('✓ In stock');
  await expect(result).toContainText(`3 packs: ${money(Math.round(inStock.unitPrice * 300) / 100)}`);
  await expect(result).toContainText(`(${money(inStock.unitPrice)} each)`);
  // Disabled while the service answered, the button has the keyboard again for the next number of packs.
  await expect(check.getByRole('button', { name: 'Check stock and price' })).toBeFocused();

  await check.getByLabel('dm+d code').fill(outOfStock.dmdCode);
  await check.getByLabel('Number of packs').fill('1');
  await check.getByRole('button', { name: 'Check stock and price' }).click();
  await expect(result).toContainText('! Out of stock');

  const couriers = page.getByRole('region', { name: 'Courier price list' });
  await expect(couriers.getByRole('row', { name: /^RMT24\b/ })).toBeVisible();
  await saveScreenshot(page, 'lookups');
});
