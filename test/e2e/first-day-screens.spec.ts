import { LOCAL_SANDBOX_ID } from '../../main/core/environments/presets.js';
import { expect, test } from './fixtures.js';
import { callBridge } from './support/bridge-client.js';
import { openSection, openWorkspace } from './support/workspace.js';

/**
 * Screens a first-day admin works through, at the edges: signing out (where the keyboard goes, what the screen
 * says), a service lookup while signed out (which must not say the order does not exist), and a link to an order
 * this computer does not have.
 */

test('signed out: the keyboard goes to the way back in, and a lookup never says "No order with…" unasked', async ({
  app,
  page,
}) => {
  await openWorkspace(page, app, 'Sign-in');
  const panel = page.getByRole('region', { name: 'Sign-in to Local sandbox' });
  try {
    await panel.getByRole('button', { name: 'Sign out' }).click();
    await expect(panel.getByRole('status').filter({ hasText: 'Signed out of Local sandbox.' })).toBeVisible();
    await expect(panel.getByRole('button', { name: 'Sign in again' })).toBeFocused();

    await openSection(page, 'Orders');
    const lookup = page.getByRole('region', { name: 'Look up on the service' });
    await lookup.getByRole('textbox', { name: 'Pharmacy order id' }).fill('1');
    await lookup.getByRole('button', { name: 'Look up' }).click();
    await expect(lookup.getByRole('alert')).toContainText('Sign-in required');
    await expect(lookup.getByRole('status')).toContainText('whether it has this order is not known');
    await expect(lookup).not.toContainText('No order with');
  } finally {
    await callBridge(app, 'signin.clientCredentials', { environmentId: LOCAL_SANDBOX_ID });
  }
});

test('a link to an order this computer does not have says so in words, with the way back', async ({ app, page }) => {
  await openWorkspace(page, app);
  await page.goto(`${app.origin}/#/orders/424242`);
  const alert = page.getByRole('alert').filter({ hasText: 'no order 424242' });
  await expect(alert).toContainText('Rx Batch has no order 424242 here');
  await expect(alert).not.toContainText('invalid');
  await page.getByRole('link', { name: 'Back to the list' }).click();
  await expect(page).toHaveURL(/#\/orders$/);
  await expect(alert).toHaveCount(0);
});

test('intake on a port another program holds says intake did not start and why, with the keyboard on the port', async ({
  app,
  page,
}) => {
  await openWorkspace(page, app, 'Intake');
  const form = page.getByRole('form', { name: 'Start intake' });
  // The app's own bridge holds this port.
  await form.getByLabel('Port').fill(String(app.port));
  await form.getByRole('button', { name: 'Start intake' }).click();
  const alert = form.getByRole('alert');
  await expect(alert).toContainText('Intake did not start.');
  await expect(alert).toContainText(`Port ${app.port} on 127.0.0.1 is in use by another program`);
  await expect(alert).not.toContainText('refused this request as invalid');
  await expect(form.getByLabel('Port')).toBeFocused();
});

test('settings: a new environment saved with fields missing puts the keyboard on the first one, each said in words', async ({
  app,
  page,
}) => {
  await openWorkspace(page, app, 'Settings');
  await page.getByRole('button', { name: 'Add environment' }).click();
  const form = page.getByRole('form', { name: 'Add an environment' });
  await form.getByRole('button', { name: 'Save new environment' }).click();
  await expect(form).toContainText('Some fields need a change before saving');
  const idField = form.getByRole('textbox', { name: 'Id', exact: true });
  await expect(idField).toBeFocused();
  await expect(idField).toHaveAccessibleDescription(/An id of 1 to 40 lower-case letters, digits and dashes/);
  await expect(form.getByRole('textbox', { name: 'Identity server (issuer)' })).toHaveAccessibleDescription(
    /https:\/\/identity\.example\//,
  );
  // Fixed in turn, the next save goes to the next field still wrong.
  await idField.fill('first-day');
  await form.getByRole('button', { name: 'Save new environment' }).click();
  await expect(form.getByRole('textbox', { name: 'Name', exact: true })).toBeFocused();
  await form.getByRole('button', { name: 'Cancel' }).click();
});

test('log export: a selection nothing matches says so, and a result is not left under filters it was not for', async ({
  app,
  page,
}) => {
  await openWorkspace(page, app, 'Log');
  const entries = page.getByRole('region', { name: 'Entries' });
  const filters = entries.getByRole('search', { name: 'Filter the log' });
  const exporter = page.getByRole('region', { name: 'Export' });
  const status = exporter.getByRole('status');

  const whole = page.waitForEvent('download');
  await exporter.getByRole('button', { name: 'Export log' }).click();
  await whole;
  await expect(status).toContainText(/^Exported \d+ entries to rx-batch-log-/);

  // New filters: the last export's sentence was about the whole log, so it goes.
  await filters.getByLabel('Search').fill('NOTHING-MATCHES-THIS');
  await filters.getByRole('button', { name: 'Search' }).click();
  await expect(entries).toContainText('0 entries shown.');
  await expect(status).toHaveText('');

  // Filters that match nothing export nothing: no download, and the status says so.
  let downloaded = false;
  page.on('download', () => (downloaded = true));
  await exporter.getByRole('button', { name: 'Export log' }).click();
  await expect(status).toHaveText(
    'No entry matches the filters, so nothing was exported and no file was written. Change or clear the filters to export.',
  );
  expect(downloaded).toBe(false);
});

test('orders: a pharmacy order id that is not a number says why Look up waits', async ({ app, page }) => {
  await openWorkspace(page, app, 'Orders');
  const lookup = page.getByRole('region', { name: 'Look up on the service' });
  const field = lookup.getByRole('textbox', { name: 'Pharmacy order id' });
  await field.fill('#100 001');
  await expect(lookup.getByRole('button', { name: 'Look up' })).toBeDisabled();
  await expect(field).toHaveAttribute('aria-invalid', 'true');
  await expect(field).toHaveAccessibleDescription(/digits only, such as 100001/);
  await field.fill('100001');
  await expect(field).not.toHaveAttribute('aria-invalid');
  await expect(lookup.getByRole('button', { name: 'Look up' })).toBeEnabled();
});
