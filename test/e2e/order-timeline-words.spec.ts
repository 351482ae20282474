import { expect, test } from './fixtures.js';
import { callBridge } from './support/bridge-client.js';
import { setSandboxFaults } from './support/sandbox-http.js';
import { saveScreenshot } from './support/screenshots.js';
import { seedOrders } from './support/seed-orders.js';
import { localSandbox, openWorkspace, uniqueSuffix } from './support/workspace.js';

test.use({ viewport: { width: 1024, height: 700 } });

test('an order whose connection was cut while sending: the timeline says so in words, the cause behind a disclosure', async ({
  app,
  page,
}) => {
  test.setTimeout(90_000);
  const local = await localSandbox(app);
  const prefix = `CUT-${uniqueSuffix()}`;
  // The service stores the order, then drops the connection before answering: the create is in doubt.
  await setSandboxFaults(local, { commitThenDropRate: 1 });
  let orderId: number;
  try {
    const batch = await seedOrders(app, local.id, { count: 1, prefix });
    const clinicOrderId = batch.clinicOrderIds[0]!;
    await expect
      .poll(
        async () => {
          const listed = await callBridge(app, 'orders.list', { environmentId: local.id, clinicOrderId, limit: 1 });
          const order = listed.orders[0];
          if (!order) return false;
          orderId = order.id;
          const detail = await callBridge(app, 'orders.get', { orderId: order.id });
          return detail.attempts.some((attempt) => attempt.operation === 'create' && attempt.outcome === 'in-doubt');
        },
        { timeout: 30_000 },
      )
      .toBe(true);
  } finally {
    await setSandboxFaults(local, { commitThenDropRate: 0 });
  }

  await openWorkspace(page, app, 'Orders');
  const order = await callBridge(app, 'orders.get', { orderId: orderId! });
  const clinicOrderId = order.order.clinicOrderId;
  const filters = page.getByRole('search', { name: 'Filter orders' });
  await filters.getByLabel('Clinic order id').fill(clinicOrderId);
  await filters.getByRole('button', { name: 'Search' }).click();
  await page
    .getByRole('region', { name: `Orders in ${local.name}` })
    .getByRole('link', { name: clinicOrderId })
    .click();
  const detail = page.getByRole('region', { name: `Order ${clinicOrderId}` });
  const timeline = detail.getByRole('list', { name: 'Order timeline' });
  const cut = timeline.getByRole('listitem').filter({ hasText: 'Sent, but no answer came back (in doubt)' });
  await expect(cut).toContainText(
    'The connection was cut while the order was being sent, so whether the service received it is unknown. The app looks the order up before sending anything again, so nothing is sent twice.',
  );
  // The technical cause is there for whoever diagnoses, but not shown until asked for.
  const technical = cut.getByRole('group').filter({ has: page.getByText('Technical details') });
  await expect(cut.getByText(/ECONNRESET/)).toBeHidden();
  await cut.getByText('Technical details').click();
  await expect(cut.getByText(/ECONNRESET/)).toBeVisible();
  await expect(technical).toHaveCount(1);
  // The look-up that followed found it: created once.
  await expect(timeline).toContainText(/Looked up: the service has it, pharmacy order id \d+/);
  await cut.scrollIntoViewIfNeeded();
  await saveScreenshot(page, 'orders-detail-connection-cut');
});
