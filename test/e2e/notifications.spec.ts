import { expect, test } from './fixtures.js';
import { saveScreenshot } from './support/screenshots.js';
import { seedOrders } from './support/seed-orders.js';
import { escapeRegExp, localSandbox, openWorkspace, uniqueSuffix } from './support/workspace.js';

test('notifications: an order is named as the Orders screen names it, and opens from that name', async ({
  app,
  page,
}) => {
  const local = await localSandbox(app);
  await openWorkspace(page, app, 'Submissions');
  // One order for a patient the service refuses (403: locked out): held, and announced.
  const batch = await seedOrders(app, local.id, {
    count: 1,
    prefix: `NOTE-${uniqueSuffix()}`,
    mutate: (body) => {
      body.customer.surname = 'Lockhart';
      body.customer.dateOfBirth = '1970-01-01';
    },
  });
  const clinicOrderId = batch.clinicOrderIds[0]!;
  const notifications = page.getByRole('region', { name: 'Notifications' });
  const note = notifications.getByRole('listitem').filter({ hasText: clinicOrderId });
  await expect(note).toContainText(new RegExp(`Order ${escapeRegExp(clinicOrderId)} \\(${batch.clinicCode}\\): `));
  // The id is in full on screen (the OS notification masks it, as exports do); no local row number appears.
  await expect(note).not.toContainText('*');
  await expect(note.getByRole('link', { name: /^Open order \d+$/ })).toHaveCount(0);
  await saveScreenshot(page, 'submissions-notifications');

  await note.getByRole('link', { name: clinicOrderId, exact: true }).click();
  await expect(page.getByRole('region', { name: `Order ${clinicOrderId}` })).toBeVisible();
});
