import type { Page } from '@playwright/test';
import { PRODUCTS } from '../../sandbox/catalogue.js';
import { expect, test } from './fixtures.js';
import { saveScreenshot } from './support/screenshots.js';
import { csvFromTemplate, TEMPLATE_ROW, templateHeader } from './support/template-csv.js';
import { chooseBatchFile, openSection, openWorkspace, uniqueSuffix } from './support/workspace.js';

/**
 * The preview's service check, as an admin uses it: import a CSV, check products and stock with the local sandbox
 * (the app's default environment, signed in with its service client), read an item's product, stock and price
 * with the time they were checked, see the out-of-stock warning for a product the sandbox seeds out of stock,
 * filter the grid to the orders with service warnings, open the Lookups search for that item's code and come back
 * to the same order of the batch. Browser mode in Chromium; nothing stubbed.
 */

const RUN = uniqueSuffix();
const PARACETAMOL = PRODUCTS.find((product) => product.dmdCode === '322236009')!;
/** 18 digits, seeded with no stock. */
const TADALAFIL = PRODUCTS.find((product) => product.dmdCode === '177803111000001105')!;

const money = (amount: number) => new Intl.NumberFormat('en-GB', { style: 'currency', currency: 'GBP' }).format(amount);

/** Rows of this spec's clinic, in the app's template. */
const base: Record<string, string> = {
  ...TEMPLATE_ROW,
  clinicCode: 'CLINIC-ENR',
  clinicName: 'Enrichment Clinic',
  dosageInstructions: 'As directed',
};

function gridCell(page: Page, name: string | RegExp) {
  return page.getByRole('grid').getByRole('gridcell', { name });
}

test('preview: check products and stock, read an item’s stock and price, see out of stock flagged', async ({
  app,
  page,
}) => {
  const header = await templateHeader(app);
  const rows = [
    {
      ...base,
      clinicOrderId: `ENR-${RUN}-1`,
      dmdCode: PARACETAMOL.dmdCode,
      medication: PARACETAMOL.name,
      quantity: '64',
      pack: '2',
    },
    {
      ...base,
      clinicOrderId: `ENR-${RUN}-2`,
      dmdCode: TADALAFIL.dmdCode,
      medication: TADALAFIL.name,
      quantity: '4',
      pack: '1',
    },
    {
      ...base,
      clinicOrderId: `ENR-${RUN}-3`,
      dmdCode: PARACETAMOL.dmdCode,
      medication: PARACETAMOL.name,
      quantity: '32',
      pack: '2',
    },
  ];

  await openWorkspace(page, app, 'Import');
  await chooseBatchFile(page, `enrichment-${RUN}.csv`, csvFromTemplate(header, rows));
  await expect(page.getByRole('status').filter({ hasText: 'Imported 3 orders' })).toContainText('3 valid');
  // The address names the batch on screen, so a reload or Back comes to it.
  await expect(page).toHaveURL(/#\/import\?batch=\d+$/);
  const batchId = /batch=(\d+)/.exec(page.url())![1]!;

  const check = page.getByRole('button', { name: 'Check products and stock' });
  await expect(check).toBeEnabled();
  await check.click();
  const summary = page.getByRole('status', { name: 'Last service check' });
  // Two codes shared by three orders: two searches, two stock checks, two prices, and the courier list.
  await expect(summary).toContainText('Checked 2 dm+d codes and 1 courier code for 3 orders with 7 calls');
  await expect(summary).toContainText('1 product out of stock (1 item)');
  await expect(summary).toContainText('1 service warning in 1 order');
  // The button was disabled while the check ran: the keyboard is back on it, not on the page.
  await expect(check).toBeFocused();

  // In the grid the out-of-stock item's code cell carries the service's own mark and says whose warning it is.
  const flagged = gridCell(page, TADALAFIL.dmdCode);
  await expect(flagged).toHaveAccessibleDescription(
    `Service warning: Out of stock at the service: ${TADALAFIL.name}. The order can still be sent.`,
  );
  await expect(flagged).toContainText('⚑');
  await expect(gridCell(page, '2 : Valid, 1 service warning')).toContainText('⚑');
  await expect(gridCell(page, '1 : Valid')).not.toContainText('⚑');

  // The first order's item: product, stock and the price of its 2 packs, with when it was checked.
  await gridCell(page, PARACETAMOL.name).first().click();
  const service = page.getByRole('region', { name: 'Service check' });
  const item = service.getByRole('group', { name: 'Item 1 (this line)' });
  await expect(item).toContainText(`${PARACETAMOL.name} (product id ${PARACETAMOL.productId}, pack of 32)`);
  await expect(item).toContainText('✓ In stock');
  await expect(item).toContainText(
    `2 packs: ${money(PARACETAMOL.unitPrice * 2)} (${money(PARACETAMOL.unitPrice)} each)`,
  );
  await expect(item.getByRole('time')).toContainText(/\(just now\)|minute/);
  await expect(service).not.toContainText('Service warning');

  // The second order's product is out of stock: said in words and with a warning sign, apart from the problems.
  await gridCell(page, TADALAFIL.name).click();
  const outOfStock = service.getByRole('group', { name: 'Item 1 (this line)' });
  await expect(outOfStock).toContainText(TADALAFIL.dmdCode);
  await expect(outOfStock).toContainText('⚠ Out of stock (the order can still be sent)');
  await expect(service.getByRole('list', { name: 'Service warnings' })).toContainText(
    `Service warning (item 1): Out of stock at the service: ${TADALAFIL.name}.`,
  );
  // A warning, not an error: all three orders still accept.
  await expect(page.getByRole('button', { name: 'Accept 3 valid orders' })).toBeEnabled();
  await saveScreenshot(page, 'preview-enrichment');

  // Filtered to the orders with service warnings: only the out-of-stock one; the problems filter is a separate one.
  const onlyWarnings = page.getByLabel('Only orders with service warnings');
  await onlyWarnings.check();
  await expect(page.getByRole('status').filter({ hasText: 'Showing 1 order with service warnings' })).toBeVisible();
  await expect(gridCell(page, '2 : Valid, 1 service warning')).toBeVisible();
  await expect(gridCell(page, '1 : Valid')).toHaveCount(0);
  await expect(gridCell(page, '3 : Valid')).toHaveCount(0);
  await expect(page.getByLabel('Only orders with problems')).not.toBeChecked();
  // The one with problems is the other filter: none here, so the grid empties; ticking it unticks this one.
  await page.getByLabel('Only orders with problems').check();
  await expect(onlyWarnings).not.toBeChecked();
  await expect(gridCell(page, '2 : Valid, 1 service warning')).toHaveCount(0);
  await page.getByLabel('Only orders with problems').uncheck();
  await expect(gridCell(page, '1 : Valid')).toBeVisible();
  await expect(gridCell(page, '3 : Valid')).toBeVisible();
  await gridCell(page, TADALAFIL.name).click();

  // From the item to the Lookups product search, filled in with its code and already searched.
  await outOfStock.getByRole('link', { name: `Look up ${TADALAFIL.dmdCode} (item 1) in Lookups` }).click();
  await expect(page.getByRole('heading', { level: 2, name: 'Lookups' })).toBeVisible();
  const search = page.getByRole('region', { name: 'Product search' });
  await expect(search.getByLabel('Product name or dm+d code')).toHaveValue(TADALAFIL.dmdCode);
  await expect(search.getByRole('row', { name: new RegExp(TADALAFIL.name) })).toBeVisible();

  // "Back to batch N (file)", by keyboard: the preview of the same batch opens with the same order focused.
  const back = page.getByRole('link', { name: new RegExp(`^Back to batch \\d+ \\(enrichment-${RUN}\\.csv\\)$`) });
  await expect(back).toBeVisible();
  await back.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 2, name: 'Import' })).toBeVisible();
  await expect(page.getByRole('heading', { level: 3, name: `Preview: enrichment-${RUN}.csv` })).toBeVisible();
  await expect(gridCell(page, '2 : Valid, 1 service warning')).toBeFocused();
  await expect(service.getByRole('group', { name: 'Item 1' })).toContainText(TADALAFIL.dmdCode);
  await expect(page).toHaveURL(new RegExp(`#/import\\?batch=${batchId}&order=\\d+$`));

  // A new import: its batch is what the screen shows now, and the address says so (the order is gone).
  await chooseBatchFile(
    page,
    `second-${RUN}.csv`,
    csvFromTemplate(header, [{ ...rows[0]!, clinicOrderId: `ENR-${RUN}-4` }]),
  );
  await expect(page.getByRole('heading', { level: 3, name: `Preview: second-${RUN}.csv` })).toBeVisible();
  await expect(page).toHaveURL(/#\/import\?batch=\d+$/);
  expect(/batch=(\d+)/.exec(page.url())![1]).not.toBe(batchId);

  // Back in the import screen the batch's last check is still there (it was stored), with its time; opening it
  // from the recent batches puts it in the address.
  await openSection(page, 'Import');
  await page
    .getByRole('button', { name: new RegExp(`enrichment-${RUN}`) })
    .first()
    .click();
  await expect(page.getByRole('status', { name: 'Last service check' })).toContainText('Last checked');
  await expect(page).toHaveURL(new RegExp(`#/import\\?batch=${batchId}$`));
});
