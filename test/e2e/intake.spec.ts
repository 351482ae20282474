import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeRde011 } from '../../main/core/importing/rde-writer.js';
import { sendWithLibrary } from '../support/hl7-client.js';
import { sampleCreateWithClinic } from '../support/orders.js';
import { expect, test } from './fixtures.js';
import { callBridge } from './support/bridge-client.js';
import { saveScreenshot } from './support/screenshots.js';
import { escapeRegExp, localSandbox, openWorkspace, uniqueSuffix } from './support/workspace.js';
import { freePort } from '../support/free-port.js';

// Issue #17, "Seeing it": the Intake screen of the app. Started from the screen (a listener on 127.0.0.1 and a
// folder inside the host's --import-dir), fed by the tests' independent MLLP client and a file, it shows each
// channel's state, peers, the per-minute chart with its words, the last problems and the batches fed, and says
// plainly that intake stops when the app closes unless `rx-batch serve` runs.

const SENDER = { sendingApplication: 'E2E-EPR', sendingFacility: 'CLINIC-E' };

test('intake: started from the screen, fed over MLLP and a folder, shown with its chart, problems and batches', async ({
  app,
  page,
}) => {
  const suffix = uniqueSuffix();
  const folder = join(app.importDir, `intake-${suffix}`);
  await mkdir(folder);
  // Listable by every user, as a folder made under the usual umask is: the screen says so.
  await chmod(folder, 0o755);
  const port = await freePort();
  try {
    await openWorkspace(page, app, 'Intake');
    const notice = page.getByRole('region', { name: 'Intake stops when this app closes' });
    await expect(notice).toContainText('run only while Rx Batch is open');
    await expect(notice.getByRole('code')).toHaveText(/^rx-batch serve --env \S+ --mllp 127\.0\.0\.1:2575$/);
    // "Intake stopped" when an earlier spec of this run started and stopped it (intake-bindings.spec).
    const idle = page.getByRole('region', { name: /^(Nothing is receiving orders|Intake stopped)$/ });
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
    await expect(watched.getByRole('note')).toContainText(
      'Other accounts on this computer: its group and every user can list it (mode 0755) and read the patient files',
    );
    // The start button has gone with its form: the keyboard is on "Stop intake", which took its place.
    await expect(page.getByRole('button', { name: 'Stop intake' })).toBeFocused();
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
    await expect(page.getByRole('button', { name: 'Start intake' })).toBeFocused();
    await expect(listener).toContainText('Stopped');
  } finally {
    await callBridge(app, 'intake.stop', {});
  }
});

test("intake: a sender's rule set on screen is saved for the environment, kept across a reload, and used by the next start", async ({
  app,
  page,
}) => {
  const suffix = uniqueSuffix();
  const ruled = { sendingApplication: `E2E-RULE-${suffix}`, sendingFacility: 'CLINIC-R' };
  const sender = `${ruled.sendingApplication}^${ruled.sendingFacility}`;
  const environment = await localSandbox(app);
  // Both senders' orders are valid (a profile gives what an HL7 message cannot carry): only the rule differs.
  for (const from of [ruled, SENDER]) {
    await callBridge(app, 'profiles.save', {
      profile: {
        name: `${from.sendingApplication} ${suffix}`,
        columns: {},
        constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' },
        valueMaps: {},
        hl7Sender: { application: from.sendingApplication, facility: from.sendingFacility, messageType: 'RDE^O11' },
      },
    });
  }
  const port = await freePort();
  try {
    await openWorkspace(page, app, 'Intake');
    const rules = page.getByRole('form', { name: 'Intake rules' });
    await expect(rules.getByRole('radio', { name: 'Hold for review in Preview' })).toBeChecked();
    const senderField = rules.getByLabel('Sender', { exact: true });

    // A sender that is not one is refused on the spot, with the reason.
    await senderField.fill('EPR|7');
    await rules.getByRole('button', { name: 'Add sender' }).click();
    await expect(rules.getByRole('alert')).toHaveText('"EPR|7": | is an HL7 separator and cannot be in a sender.');
    await expect(senderField).toHaveAttribute('aria-invalid', 'true');

    // Added from the keyboard (Enter in the field), its rule chosen, then saved.
    await senderField.fill(sender);
    await rules.getByLabel('Its rule').selectOption({ label: 'Send valid orders as they arrive' });
    await senderField.press('Enter');
    const row = rules.getByRole('row', { name: new RegExp(escapeRegExp(sender)) });
    await expect(row.getByLabel(`Rule for ${sender}`)).toHaveValue('send');
    await expect(rules.getByRole('status')).toHaveText('Not saved yet.');
    await rules.getByRole('button', { name: 'Save rules' }).click();
    await expect(rules.getByRole('status')).toHaveText(`Saved for ${environment.name}. The next start uses them.`);
    await saveScreenshot(page, 'intake-rules');

    // Kept for the environment: a reload reads them back.
    await page.reload();
    await expect(page.getByRole('heading', { level: 2, name: 'Intake', exact: true })).toBeVisible();
    await expect(rules.getByLabel(`Rule for ${sender}`)).toHaveValue('send');
    await expect(rules.getByRole('radio', { name: 'Hold for review in Preview' })).toBeChecked();
    await expect(rules.getByRole('status')).toHaveText(/^Saved /);

    // The next start uses them: that sender's valid order goes to the outbox, the other sender's waits in Preview.
    const start = page.getByRole('form', { name: 'Start intake' });
    await start.getByLabel('Port').fill(String(port));
    await start.getByRole('button', { name: 'Start intake' }).click();
    await expect(page.getByRole('region', { name: /^Running since/ })).toContainText(
      `orders are held for review in Preview; senders with a rule of their own: ${sender} (sent as they arrive).`,
    );
    const sent = sampleCreateWithClinic({ clinicOrderId: `RULE-${suffix}-S` });
    const held = sampleCreateWithClinic({ clinicOrderId: `RULE-${suffix}-H` });
    const acks = await sendWithLibrary(port, [
      writeRde011(sent, { controlId: `RS-${suffix}`, timestamp: '20261126101500', ...ruled }),
      writeRde011(held, { controlId: `RH-${suffix}`, timestamp: '20261126101500', ...SENDER }),
    ]);
    expect(acks.map((ack) => ack.get('MSA.1'))).toEqual(['AA', 'AA']);
    const orders = async (clinicOrderId: string) =>
      (await callBridge(app, 'orders.list', { environmentId: environment.id, clinicOrderId, limit: 5 })).orders.length;
    await expect.poll(() => orders(sent.prescription.clinicOrderId), { timeout: 10_000 }).toBe(1);
    expect(await orders(held.prescription.clinicOrderId)).toBe(0);

    // A change saved while it runs is for the next start, and the screen says so.
    await rules.getByRole('button', { name: `Remove ${sender}` }).click();
    await rules.getByRole('button', { name: 'Save rules' }).click();
    await expect(rules.getByRole('status')).toContainText('The intake running now keeps the rules it started with');
    await expect(rules).toContainText('None: every sender follows the rule above.');
  } finally {
    await callBridge(app, 'intake.stop', {});
    await callBridge(app, 'intake.saveRules', {
      environmentId: environment.id,
      rules: { onArrival: 'hold', senders: [] },
    });
  }
});
