import { expect, test } from './fixtures.js';
import { callBridge } from './support/bridge-client.js';
import { sandboxOrders, setSandboxFaults } from './support/sandbox-http.js';
import { saveScreenshot } from './support/screenshots.js';
import { seedOrders } from './support/seed-orders.js';
import { localSandbox, openWorkspace, uniqueSuffix } from './support/workspace.js';

const COUNT = 40;

test('journey 3: the service goes down mid-batch, the banner says so, orders wait, and each arrives once', async ({
  app,
  page,
}) => {
  test.setTimeout(150_000);
  const local = await localSandbox(app);
  const prefix = `OFF-${uniqueSuffix()}`;
  const arrived = async () =>
    (await sandboxOrders(local)).filter((order) => order.clinicOrderId.startsWith(prefix)).map((o) => o.clinicOrderId);

  await openWorkspace(page, app, 'Submissions');
  const progress = page.getByRole('region', { name: 'Progress' });
  const banner = page.getByRole('alert').filter({ hasText: 'The Order Service is not answering' });

  // Slow answers keep the batch going long enough to pull the plug in the middle of it.
  await setSandboxFaults(local, { latencyMs: 300 });
  try {
    await seedOrders(app, local.id, { count: COUNT, prefix, clinicCode: `OFF-${prefix.slice(-4)}` });
    await expect.poll(async () => (await arrived()).length, { timeout: 30_000 }).toBeGreaterThanOrEqual(3);
    await setSandboxFaults(local, { outage: true });

    await expect(banner).toBeVisible({ timeout: 45_000 });
    await expect(banner).toContainText('Nothing is lost or sent twice.');
    await expect(
      page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: /Submissions/ }),
    ).toContainText('needs attention');
    // Orders wait here: some are still to go, and the service did not get them all.
    await expect(progress).toContainText(/[1-9][\d,]* to go/);
    expect((await arrived()).length).toBeLessThan(COUNT);
    await saveScreenshot(page, 'submissions-offline');
  } finally {
    await setSandboxFaults(local, { outage: false, latencyMs: 0 });
  }

  // Back: the outbox probes, finds the service, settles what was in doubt and sends the rest by itself.
  await expect(banner).toHaveCount(0, { timeout: 60_000 });
  await expect(progress).toContainText(/ 0 to go/, { timeout: 60_000 });
  const ids = await arrived();
  expect(ids).toHaveLength(COUNT);
  expect(new Set(ids).size).toBe(COUNT);

  const local40 = await callBridge(app, 'orders.list', {
    environmentId: local.id,
    clinicCode: `OFF-${prefix.slice(-4)}`,
    limit: 100,
  });
  expect(local40.orders).toHaveLength(COUNT);
  expect(local40.orders.every((order) => order.state === 'created' && order.pharmacyOrderId !== null)).toBe(true);
  await saveScreenshot(page, 'submissions-recovered');
});
