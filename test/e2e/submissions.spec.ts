import { expect, test } from './fixtures.js';
import { callBridge } from './support/bridge-client.js';
import { saveScreenshot } from './support/screenshots.js';
import { seedOrders } from './support/seed-orders.js';
import { localSandbox, openWorkspace, uniqueSuffix } from './support/workspace.js';

test('submissions: a paused batch waits, then runs to done with live counts; a held order explains itself', async ({
  app,
  page,
}) => {
  const local = await localSandbox(app);
  const before = await callBridge(app, 'outbox.progress', { environmentId: local.id });
  const settledBefore = Object.entries(before.counts)
    .filter(([state]) => !['ready', 'withdrawn', 'queued', 'sending', 'in_doubt'].includes(state))
    .reduce((sum, [, n]) => sum + n, 0);
  await openWorkspace(page, app, 'Submissions');
  const progress = page.getByRole('region', { name: 'Progress' });

  await progress.getByRole('button', { name: 'Pause sending' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Sending is paused.' })).toBeVisible();
  // Disabled while the outbox answered, the button keeps the keyboard as it turns into Resume.
  await expect(progress.getByRole('button', { name: 'Resume sending' })).toBeFocused();
  // Twelve orders, one for a patient the service refuses (403: locked out), accepted while sending is paused.
  const batch = await seedOrders(app, local.id, {
    count: 12,
    prefix: `SUB-${uniqueSuffix()}`,
    mutate: (body, index) => {
      if (index !== 4) return;
      body.customer.surname = 'Lockhart';
      body.customer.dateOfBirth = '1970-01-01';
    },
  });
  const total = settledBefore + 12;
  await expect(
    progress
      .getByRole('row', { name: /Queued/ })
      .getByRole('cell')
      .first(),
  ).toHaveText('12');
  await expect(progress).toContainText(`${settledBefore} of ${total} orders settled`);
  await expect(progress).toContainText('12 to go');
  await saveScreenshot(page, 'submissions-paused');

  await progress.getByRole('button', { name: 'Resume sending' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Sending is paused.' })).toHaveCount(0);
  await expect(progress).toContainText(`${total} of ${total} orders settled (100%) · 0 to go`, { timeout: 30_000 });
  const bar = progress.getByRole('progressbar', { name: 'Submission progress' });
  await expect(bar).toHaveAttribute('value', String(total));
  await expect(bar).toHaveAttribute('max', String(total));
  await expect(progress).toContainText('Idle: nothing to send');

  // The refused patient is held, with the service's reason and the action that fixes it.
  const problems = page.getByRole('region', { name: 'Orders that need attention' });
  const held = problems.getByRole('listitem', { name: `Order ${batch.clinicOrderIds[4]}` });
  await expect(held).toContainText('Held');
  await expect(held).toContainText('Held for a person to decide');
  await expect(held).toContainText('locked-out patient');
  // Settled is not done: the progress line says that some wait for a person.
  await expect(progress).toContainText(/0 to go · [\d,]+ needs? a person \(below\)/);
  await saveScreenshot(page, 'submissions');
  await held.getByRole('button', { name: `Send again now (${batch.clinicOrderIds[4]})` }).click();
  await expect(problems.getByRole('status')).toHaveText('1 order will be tried again now.');
  // Refused again (the patient is still locked out): held once more, never created.
  await expect(held).toContainText('Held for a person to decide', { timeout: 15_000 });
});
