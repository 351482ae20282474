import { createServer } from 'node:net';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeRde011 } from '../../main/core/importing/rde-writer.js';
import { sendWithLibrary } from '../support/hl7-client.js';
import { sampleCreateWithClinic } from '../support/orders.js';
import { expect, test } from './fixtures.js';
import { callBridge } from './support/bridge-client.js';
import { saveScreenshot } from './support/screenshots.js';
import { openWorkspace, uniqueSuffix } from './support/workspace.js';

// Issue #17, "Seeing it": the Intake screen of the app. Started from the screen (a listener on 127.0.0.1 and a
// folder inside the host's --import-dir), fed by the tests' independent MLLP client and a file, it shows each
// channel's state, peers, the per-minute chart with its words, the last problems and the batches fed, and says
// plainly that intake stops when the app closes unless `rx-batch serve` runs.

const SENDER = { sendingApplication: 'E2E-EPR', sendingFacility: 'CLINIC-E' };

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

test('intake: started from the screen, fed over MLLP and a folder, shown with its chart, problems and batches', async ({
  app,
  page,
}) => {
  const suffix = uniqueSuffix();
  const folder = join(app.importDir, `intake-${suffix}`);
  await mkdir(folder);
  const port = await freePort();
  try {
    await openWorkspace(page, app, 'Intake');
    const notice = page.getByRole('region', { name: 'Intake stops when this app closes' });
    await expect(notice).toContainText('run only while Rx Batch is open');
    await expect(notice.getByRole('code')).toHaveText(/^rx-batch serve --env \S+ --mllp 127\.0\.0\.1:2575$/);
    const idle = page.getByRole('region', { name: 'Nothing is receiving orders' });
    await expect(idle).toContainText("Point a clinic system's HL7 (MLLP) sender at this computer's port");

    await page.setViewportSize({ width: 1024, height: 700 });
    await saveScreenshot(page, 'intake-not-started');

    const form = idle.getByRole('form', { name: 'Start intake' });
    await form.getByLabel('Port').fill(String(port));
    await expect(notice.getByRole('code')).toContainText(`--mllp 127.0.0.1:${port}`);
    await form.getByLabel('Folder to watch (optional)').fill(folder);
    await form.getByRole('button', { name: 'Start intake' }).click();

    const listener = page.getByRole('region', { name: `MLLP listener 127.0.0.1:${port}` });
    await expect(listener).toContainText('Listening');
    await expect(listener).toContainText('No one');
    await expect(listener.getByRole('img')).toHaveAccessibleName('No messages in the last hour.');
    const watched = page.getByRole('region', { name: `Watched folder ${folder}` });
    await expect(watched).toContainText('Watching');
    await expect(notice.getByRole('code')).toContainText(`--mllp 127.0.0.1:${port} --watch ${folder}`);

    // Two orders and one message that is not an order type, from the independent client.
    const message = (controlId: string) =>
      writeRde011(sampleCreateWithClinic({ clinicOrderId: `IN-${suffix}-${controlId}` }), {
        controlId,
        timestamp: '20261126101500',
        ...SENDER,
      });
    const adt = message(`ADT-${suffix}`).replace('RDE^O11^RDE_O11', 'ADT^A01^ADT_A01');
    const acks = await sendWithLibrary(port, [message(`A1-${suffix}`), message(`A2-${suffix}`), adt]);
    expect(acks.map((ack) => ack.get('MSA.1'))).toEqual(['AA', 'AA', 'AR']);
    // And a file dropped into the watched folder.
    await writeFile(join(folder, `orders-${suffix}.hl7`), message(`F1-${suffix}`));

    await expect(listener.getByRole('img')).toHaveAccessibleName(
      /^3 messages in the last hour; at most 3 in one minute; \d in the current minute\.$/,
      { timeout: 10_000 },
    );
    await expect(listener).toContainText('3 messages');
    const problems = listener.getByRole('table');
    await expect(problems.getByRole('row', { name: new RegExp(`ADT-${suffix}`) })).toContainText(
      'Unsupported message type (MSH-9)',
    );
    await expect(problems.getByRole('row', { name: new RegExp(`ADT-${suffix}`) })).toContainText('127.0.0.1:');
    const batchLink = listener.getByRole('link', { name: /^Batch \d+: E2E-EPR\^CLINIC-E \d{4}-\d{2}-\d{2} \(MLLP\)$/ });
    await expect(batchLink).toBeVisible({ timeout: 10_000 });
    await expect(batchLink).toHaveAttribute('href', /^#\/import\?batch=\d+$/);
    await expect(watched.getByRole('img')).toHaveAccessibleName(/^1 file in the last hour/, { timeout: 10_000 });
    await expect(watched.getByRole('link', { name: new RegExp(`^Batch \\d+: orders-${suffix}\\.hl7$`) })).toBeVisible();

    await saveScreenshot(page, 'intake');

    // The link opens that batch in the preview.
    const href = await batchLink.getAttribute('href');
    await batchLink.click();
    await expect(page).toHaveURL(new RegExp(`${href!.replace(/[?]/g, '\\?')}$`));
    await expect(page.getByRole('heading', { level: 2, name: 'Import', exact: true })).toBeVisible();

    await page.goBack();
    await page.getByRole('button', { name: 'Stop intake' }).click();
    await expect(page.getByRole('region', { name: 'Intake stopped' })).toBeVisible();
    await expect(listener).toContainText('Stopped');
  } finally {
    await callBridge(app, 'intake.stop', {});
  }
});
