import { STAGED_DAYS_RULE } from '../../shared/retention-contract.js';
import { expect, test } from './fixtures.js';
import { callBridge } from './support/bridge-client.js';
import { saveScreenshot } from './support/screenshots.js';
import { openWorkspace } from './support/workspace.js';

test('settings: the theme follows the choice and is remembered; the data directory is shown', async ({ app, page }) => {
  await page.emulateMedia({ colorScheme: 'light' });
  await openWorkspace(page, app, 'Settings');
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const light = await background();

  const theme = page.getByRole('group', { name: 'Theme' });
  await expect(theme.getByRole('radio', { name: 'Same as the system' })).toBeChecked();
  await theme.getByRole('radio', { name: 'Dark' }).check();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  expect(await background()).not.toBe(light);
  await saveScreenshot(page, 'settings-dark');

  // Remembered on this computer: a reload opens dark, with Dark chosen.
  await page.reload();
  await expect(page.getByRole('group', { name: 'Theme' }).getByRole('radio', { name: 'Dark' })).toBeChecked();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.getByRole('group', { name: 'Theme' }).getByRole('radio', { name: 'Light' }).check();
  expect(await background()).toBe(light);

  await expect(page.getByRole('region', { name: 'Data' })).toContainText(app.dataDir);
});

test('settings: an API profile is edited, checked field by field, and saved', async ({ app, page }) => {
  await openWorkspace(page, app, 'Settings');
  const environments = page.getByRole('region', { name: 'Environments' });
  await environments.getByRole('button', { name: 'Edit CloudRx sandbox' }).click();
  const form = page.getByRole('form', { name: 'Edit CloudRx sandbox' });
  await expect(form.getByLabel('API base URL')).toHaveValue('https://sandbox-orderservice.cloudrx.co.uk/');

  await form.getByLabel('Client id').fill('supplier-client-42');
  // A new client id is a new identity: saving will sign the environment out, and the form says so first.
  await expect(form.getByRole('note')).toContainText('it will be signed out');
  // Credentials never go to a plain-http address on another computer.
  await form.getByLabel('API base URL').fill('http://orders.example.com/');
  await form.getByRole('button', { name: 'Save changes' }).click();
  await expect(form.getByLabel('API base URL')).toHaveAttribute('aria-invalid', 'true');
  await expect(form.getByText(/uses plain http\. Use https/)).toBeVisible();
  await form.getByLabel('API base URL').fill('https://sandbox-orderservice.cloudrx.co.uk/');
  await form.getByLabel('Status poll interval (seconds)').fill('2');
  await form.getByLabel('Orders in flight at once').fill('3');
  await form.getByLabel('Courier codes').fill('RMT24\nRMT48\nDPD\nPARCELFORCE');
  await form.getByRole('button', { name: 'Save changes' }).click();
  // Refused before anything is sent, with the reason beside the field.
  await expect(form.getByLabel('Status poll interval (seconds)')).toHaveAttribute('aria-invalid', 'true');
  await expect(form.getByText('Between 5 seconds and 1 day')).toBeVisible();
  await saveScreenshot(page, 'settings-profile');

  await form.getByLabel('Status poll interval (seconds)').fill('30');
  await form.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved CloudRx sandbox.' })).toBeVisible();
  await expect(environments.getByRole('row', { name: /CloudRx sandbox/ })).not.toContainText('no client id yet');

  const saved = (await callBridge(app, 'environments.list', {})).find((e) => e.id === 'cloudrx-sandbox');
  expect(saved).toMatchObject({ clientId: 'supplier-client-42', pollIntervalMs: 30_000, concurrency: 3 });
  expect(saved?.codeLists.courierCodes).toEqual(['RMT24', 'RMT48', 'DPD', 'PARCELFORCE']);
});

test('settings: how long imported file copies are kept is set on screen, asked first when shorter, and kept', async ({
  app,
  page,
}) => {
  await page.emulateMedia({ colorScheme: 'light' });
  await openWorkspace(page, app, 'Settings');
  const section = page.getByRole('region', { name: 'Imported file copies' });
  // What stays and what goes, said before anything is chosen.
  await expect(section).toContainText('the Log are kept for ever');
  await expect(section).toContainText('its source text is no longer shown');
  const form = section.getByRole('form', { name: 'Keep imported file copies' });
  const days = form.getByLabel('Days after an order is accepted, once it is finished');
  await expect(form.getByRole('radio', { name: 'For a number of days' })).toBeChecked();
  await expect(days).toHaveValue('90');

  try {
    // Refused beside the field, with the rule the core and the CLI use; nothing is saved.
    await days.fill('0');
    await days.press('Enter');
    await expect(days).toHaveAttribute('aria-invalid', 'true');
    await expect(form.getByText(STAGED_DAYS_RULE)).toBeVisible();
    expect((await callBridge(app, 'retention.get', {})).stagedDays).toBe(90);

    // Shorter: the app says what that drops first, and "Cancel" (the focused default) keeps the old time.
    await days.fill('30');
    await days.press('Enter');
    const question = page.getByRole('dialog', { name: 'Keep imported file copies for 30 days only?' });
    await expect(question).toContainText('They cannot be brought back');
    await expect(question.getByRole('button', { name: 'Cancel' })).toBeFocused();
    await saveScreenshot(page, 'settings-retention-confirm');
    await page.keyboard.press('Escape');
    await expect(question).toBeHidden();
    expect((await callBridge(app, 'retention.get', {})).stagedDays).toBe(90);

    await days.press('Enter');
    await question.getByRole('button', { name: 'Keep them 30 days' }).click();
    await expect(
      page.getByRole('status').filter({ hasText: 'Saved: imported file copies are kept for 30 days.' }),
    ).toBeVisible();
    // The question and its buttons are gone: the keyboard is back on Save, not on the page.
    await expect(
      page.getByRole('region', { name: 'Imported file copies' }).getByRole('button', { name: 'Save' }),
    ).toBeFocused();

    // Kept: a reload reads it back from the core; in the dark theme too.
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.reload();
    const again = page.getByRole('region', { name: 'Imported file copies' });
    await expect(again.getByLabel('Days after an order is accepted, once it is finished')).toHaveValue('30');
    await saveScreenshot(page, 'settings-retention-dark');

    // For ever, chosen with the keyboard: nothing goes sooner, so nothing is asked.
    await again.getByRole('radio', { name: 'For a number of days' }).focus();
    await page.keyboard.press('ArrowDown');
    await expect(again.getByRole('radio', { name: 'For ever' })).toBeChecked();
    await expect(again.getByLabel('Days after an order is accepted, once it is finished')).toHaveCount(0);
    await again.getByRole('button', { name: 'Save' }).click();
    await expect(
      page.getByRole('status').filter({ hasText: 'Saved: imported file copies are kept for ever.' }),
    ).toBeVisible();

    // Each change is in the Log, by the user, with the days before and after and the front end it came through.
    const { entries } = await callBridge(app, 'log.list', { action: 'retention.changed', limit: 10 });
    expect(entries.slice(0, 2).map((entry) => [entry.actor, entry.details])).toEqual([
      ['user', { outcome: 'kept for ever', previousRetentionDays: 30, via: 'browser' }],
      ['user', { retentionDays: 30, previousRetentionDays: 90, via: 'browser' }],
    ]);
  } finally {
    // The app is shared by the worker's specs: back to the default.
    await callBridge(app, 'retention.set', { stagedDays: 90 });
  }
});
