import { expect, test } from './fixtures.js';
import { csvFromTemplate, TEMPLATE_ROW, templateHeader } from './support/template-csv.js';
import { chooseBatchFile, localSandbox, openWorkspace, openSection, uniqueSuffix } from './support/workspace.js';

/**
 * The preview as a first-day admin opens it: the grid ends at the window's bottom whatever the window (the tools
 * above it wrap to more lines in a narrow one), so its last lines are never below the window while the grid
 * scrolls on its own; and "Send as" says what happens to the orders, with the service call in small print.
 */

const SIZES = [
  { width: 1024, height: 700 },
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
] as const;

test('the preview grid fits the window at every size, and Send as is said in the admin’s words', async ({
  app,
  page,
}) => {
  const run = uniqueSuffix();
  const header = await templateHeader(app);
  const rows = Array.from({ length: 60 }, (_, i) => ({ ...TEMPLATE_ROW, clinicOrderId: `FIT-${run}-${i + 1}` }));
  const file = `fit-${run}.csv`;
  await page.setViewportSize(SIZES[0]);
  await openWorkspace(page, app);
  await localSandbox(app);
  await openSection(page, 'Import');
  await chooseBatchFile(page, file, csvFromTemplate(header, rows));
  const grid = page.getByRole('grid', { name: `Orders in ${file}` });
  await expect(grid.getByRole('gridcell', { name: `FIT-${run}-1`, exact: true })).toBeVisible();
  const preview = page.getByRole('region', { name: `Preview: ${file}` });

  for (const size of SIZES) {
    await page.setViewportSize(size);
    // Where the preview opens: at the top of the window.
    await preview.evaluate((element) => element.scrollIntoView({ block: 'start' }));
    await expect(async () => {
      const box = (await grid.boundingBox())!;
      const bottom = box.y + box.height;
      expect(bottom).toBeLessThanOrEqual(size.height);
      // …and uses the window: no more than a few pixels left under it.
      expect(bottom).toBeGreaterThan(size.height - 24);
    }).toPass();
  }

  const sendAs = preview.getByLabel('Send as');
  const labels = await sendAs.getByRole('option').allTextContents();
  expect(labels).toEqual([
    "Each order with its clinic's details (registers the clinic)",
    'Orders for clinics the service already knows',
  ]);
  await expect(sendAs).toHaveAccessibleDescription(/PUT \/api\/v1\/Order\/create-with-clinic/);
  await sendAs.selectOption({ label: 'Orders for clinics the service already knows' });
  await expect(sendAs).toHaveAccessibleDescription('Service call: PUT /api/v2/Order/create');

  // The next import's settings say the same.
  const settings = page.locator('details').filter({ hasText: 'Settings for the next import' });
  await settings.getByText('Settings for the next import').click();
  const nextSendAs = settings.getByLabel('Send as');
  await expect(nextSendAs.getByRole('option').first()).toHaveText(
    "Each order with its clinic's details (registers the clinic)",
  );
  await expect(nextSendAs).toHaveAccessibleDescription(/create-with-clinic/);
});
