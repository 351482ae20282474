import { collectPageProblems, expect, test } from './support/journey-app.js';
import { callBridge } from './support/bridge-client.js';
import { addDeviceEnvironment } from './support/device-environment.js';
import { csvFromTemplate, TEMPLATE_ROW, templateHeader } from './support/template-csv.js';
import { chooseEnvironment, openSection, uniqueSuffix } from './support/workspace.js';

/**
 * An admin with more batches than the Import screen lists at first (live intake makes one a sender a day) reaches
 * every older one from the list, each with its number, and can open it.
 */

test.setTimeout(90_000);

test('imported batches: the newest twenty first, older ones a page at a time, each with its number', async ({
  app,
  page,
}) => {
  const problems = collectPageProblems(page);
  const run = uniqueSuffix();
  const environment = await addDeviceEnvironment(app, `Batch pages ${run}`);
  const header = await templateHeader(app);
  const ids: number[] = [];
  for (let i = 0; i < 23; i += 1) {
    const content = csvFromTemplate(header, [{ ...TEMPLATE_ROW, clinicOrderId: `BP-${run}-${i}` }]);
    const outcome = await callBridge(app, 'import.file', {
      environmentId: environment.id,
      upload: { name: `day-${i}.csv`, content },
    });
    if (outcome.status !== 'staged') throw new Error(`day-${i}.csv was not staged: ${outcome.status}`);
    ids.push(outcome.batchId);
  }

  await page.goto(app.url);
  await chooseEnvironment(page, environment.name);
  await openSection(page, 'Import');
  const list = page.getByRole('region', { name: 'Imported batches' });
  const rows = list.getByRole('row').filter({ has: page.getByRole('rowheader') });
  await expect(rows).toHaveCount(20);
  await expect(rows.first().getByRole('rowheader')).toHaveText('day-22.csv');
  await expect(rows.first().getByRole('cell').first()).toHaveText(String(ids[22]));
  await expect(list).not.toContainText('day-2.csv');

  await list.getByRole('button', { name: 'Load older batches' }).click();
  await expect(rows).toHaveCount(23);
  await expect(rows.last().getByRole('rowheader')).toHaveText('day-0.csv');
  await expect(list.getByRole('button', { name: /older batches/ })).toHaveCount(0);

  // The oldest opens in the preview like any other.
  await list.getByRole('button', { name: `Review day-0.csv (batch ${ids[0]})` }).click();
  await expect(page.getByRole('heading', { name: /Preview: day-0\.csv/ })).toBeVisible();
  expect(problems).toEqual([]);
});
