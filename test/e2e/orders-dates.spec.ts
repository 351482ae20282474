import { expect, test } from './fixtures.js';
import { seedOrders } from './support/seed-orders.js';
import { escapeRegExp, localSandbox, openWorkspace, uniqueSuffix } from './support/workspace.js';

/**
 * The Orders screen's date fields read a date day first (as the app's files and its UK admins write it) or as ISO,
 * whatever the browser's language, and say back the day they read with its month's name. A US-English browser is
 * the case that matters: its own order would read 03/04 as 4 March, and silently filter on the wrong day.
 */
test.use({ locale: 'en-US' });

const dayFirst = (iso: string) => iso.split('-').reverse().join('/');
const monthName = (iso: string) =>
  new Intl.DateTimeFormat('en-GB', { month: 'long', timeZone: 'UTC' }).format(Date.parse(`${iso}T00:00:00Z`));

test('orders: the accepted-between filter reads dd/mm/yyyy in a US-English browser and finds the day meant', async ({
  app,
  page,
}) => {
  const local = await localSandbox(app);
  const batch = await seedOrders(app, local.id, { count: 1, prefix: `DAY-${uniqueSuffix()}` });
  const clinicOrderId = batch.clinicOrderIds[0]!;
  await openWorkspace(page, app, 'Orders');
  const filters = page.getByRole('search', { name: 'Filter orders' });
  const list = page.getByRole('region', { name: `Orders in ${local.name}` });
  const row = list.getByRole('row', { name: new RegExp(escapeRegExp(clinicOrderId)) });
  const from = filters.getByRole('textbox', { name: 'From', exact: true });
  const to = filters.getByRole('textbox', { name: 'To', exact: true });

  await expect(from).toHaveAccessibleDescription('dd/mm/yyyy or yyyy-mm-dd');
  // Day first: 03/04 is the 3rd of April, and 13/04 a real day, not a mistake.
  await from.fill('03/04/2026');
  await expect(from).toHaveAccessibleDescription(/^Friday,? 3 April 2026$/);
  await from.fill('13/04/2026');
  await expect(from).not.toHaveAttribute('aria-invalid');
  await expect(from).toHaveAccessibleDescription(/^Monday,? 13 April 2026$/);
  await from.fill('04/13/2026');
  await expect(from).toHaveAttribute('aria-invalid', 'true');
  await expect(from).toHaveAccessibleDescription('Not a date: write it as dd/mm/yyyy or yyyy-mm-dd');
  await from.fill('');

  // The order was accepted today: up to today, day first, finds it; up to yesterday does not.
  const today = new Date().toISOString().slice(0, 10);
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  await filters.getByLabel('Clinic order id').fill(clinicOrderId);
  await to.fill(dayFirst(today));
  await expect(to).toHaveAccessibleDescription(new RegExp(monthName(today)));
  await filters.getByRole('button', { name: 'Search' }).click();
  await expect(row).toBeVisible();
  await to.fill(dayFirst(yesterday));
  await filters.getByRole('button', { name: 'Search' }).click();
  await expect(row).toHaveCount(0);
  await expect(list).toContainText('0 orders shown.');
  await from.fill(dayFirst(today));
  await to.fill(dayFirst(today));
  await filters.getByRole('button', { name: 'Search' }).click();
  await expect(row).toBeVisible();
});
