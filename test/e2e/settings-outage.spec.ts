import { expect, test } from './fixtures.js';
import { sandboxOrders, setSandboxFaults } from './support/sandbox-http.js';
import { saveScreenshot } from './support/screenshots.js';
import { seedOrders } from './support/seed-orders.js';
import { localSandbox, openWorkspace, uniqueSuffix } from './support/workspace.js';

// The service answers, but not as the environment is set up (here: its calls moved to another path, so the old
// one answers a web server's "Not Found" page): the Submissions banner says so and what to look at, not that the
// service is not answering, and the orders go once it is put right.

test('a service the environment no longer reaches as set up: the banner says what to check, orders go after', async ({
  app,
  page,
}) => {
  test.setTimeout(120_000);
  const local = await localSandbox(app);
  await openWorkspace(page, app, 'Submissions');
  const prefix = `MOVED-${uniqueSuffix()}`;
  const banner = page.getByRole('alert').filter({ hasText: 'cannot be used as it is set up' });
  await setSandboxFaults(local, { movedApi: true });
  try {
    await seedOrders(app, local.id, { count: 6, prefix });
    await expect(banner).toBeVisible({ timeout: 45_000 });
    await expect(banner).toContainText('so sending has stopped');
    await expect(banner).toContainText('The service has no such call at this address');
    await expect(banner).toContainText('check the API base URL and the API version');
    await expect(banner.getByRole('link', { name: 'settings' })).toHaveAttribute('href', '#/settings');
    await expect(page.getByText('The Order Service is not answering')).toHaveCount(0);
    // The notification says the same, in a sentence for a person.
    await expect(page.getByText('cannot be used as this environment is set up: check its settings')).toBeVisible();
    await saveScreenshot(page, 'settings-outage-banner');
  } finally {
    await setSandboxFaults(local, { movedApi: false });
  }
  await banner.getByRole('button', { name: 'Try now' }).click();
  await expect(banner).toHaveCount(0, { timeout: 45_000 });
  // Each order created once, none rejected for the address that was wrong for a while.
  await expect
    .poll(async () => (await sandboxOrders(local)).filter((o) => o.clinicOrderId.startsWith(prefix)).length, {
      timeout: 45_000,
    })
    .toBe(6);
});
