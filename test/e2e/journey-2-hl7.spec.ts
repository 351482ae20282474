import { callBridge } from './support/bridge-client.js';
import { collectPageProblems, expect, test } from './support/journey-app.js';
import { chooseBatchFile, chooseEnvironment, localSandbox, openSection } from './support/workspace.js';
import { sandboxOrders } from './support/sandbox-http.js';
import { saveScreenshot } from './support/screenshots.js';

/**
 * Journey 2: an HL7 v2 batch file (FHS/BHS, three RDE^O11 messages) imported in the browser, where each value
 * came from shown down to the field and its segment; what HL7 does not carry (payment type, courier, currency)
 * given as constants of a saved HL7 mapping profile and the file imported again with it; then sent by forwarding
 * the original messages, which the sandbox stores as they were. The next file from the same sender (MSH-3, MSH-4,
 * message type) is read with that profile by itself, and the admin can set it aside.
 */

test.setTimeout(120_000);

const RUN = Date.now().toString(36).toUpperCase();
const id = (n: number) => `J2-${RUN}-${n}`;
/** MSH-3, unique per run: the saved profile is chosen by its sender on the next file. */
const SENDER = `EPR-${RUN}`;

function message(n: number, quantity: number): string[] {
  return [
    `MSH|^~\\&|${SENDER}|CLINIC-J2|CLOUDRX|PHARMACY|20250101120000||RDE^O11^RDE_O11|MSG-${id(n)}|P|2.5`,
    'PID|1||||Example^Alex^^^Ms||19800115|F|||1 High Street^Flat 2^Leeds^West Yorkshire^LS1 4AP^GBR^H||07700900123^PRN^PH',
    `ORC|NW|${id(n)}||||||||||7123456^Dr Jane Smith|||||||||Journey Clinic^^^^^^^^^CLINIC-J2|10 Market Street^^^^YO1 7HH^GBR|01904 000000^WPN^PH`,
    `RXE||42109611000001109^Paracetamol 500mg tablets^DMD|||||^Two tablets up to four times a day|||${quantity}||0`,
  ];
}

test('journey 2: HL7 batch → provenance of a field → HL7 profile constants → forwarded → stored in the sandbox', async ({
  app,
  page,
}) => {
  const problems = collectPageProblems(page);
  const local = await localSandbox(app);
  const hl7 = [
    `FHS|^~\\&|${SENDER}`,
    `BHS|^~\\&|${SENDER}`,
    ...message(1, 32),
    ...message(2, 16),
    ...message(3, 64),
    'BTS|3',
    'FTS|1',
  ].join('\r');

  await page.goto(app.url);
  await chooseEnvironment(page, local.name);
  // The local sandbox signs in with its own service account (client credentials) as the app starts.
  await expect(page.getByRole('status', { name: 'Signed-in identity' })).toContainText('Signed in');

  await openSection(page, 'Import');
  await chooseBatchFile(page, 'journey-2.hl7', hl7);
  // RDE^O11 carries no payment type, courier or currency: every order is missing them.
  await expect(page.getByRole('status').filter({ hasText: 'Imported 3 orders' })).toContainText(
    '0 valid, 3 with errors',
  );
  const detected = page.getByRole('region', { name: 'What was found' });
  await expect(detected).toContainText('HL7');
  await expect(detected).toContainText('RDE^O11');

  // Provenance: the quantity of order 3 came from an RXE field, and the segment is shown as it was in the file.
  const grid = page.getByRole('grid', { name: 'Orders in journey-2.hl7' });
  await grid.getByRole('gridcell', { name: '64', exact: true }).click();
  const details = page.getByRole('complementary', { name: new RegExp(`Order 3 \\(${id(3)}\\)`) });
  await expect(details).toContainText(/journey-2\.hl7, message 3, field RXE-\d+/);
  const segment = details.getByRole('figure', { name: 'HL7 segment' });
  await expect(segment).toContainText('RXE||42109611000001109^Paracetamol 500mg tablets^DMD');
  await expect(segment).toContainText('|||64||0');

  // Keyboard: left to the dm+d code of the same item, whose provenance is the RXE-2 component.
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await expect(details).toContainText(/field RXE-2/);
  await saveScreenshot(page, 'journey-2-provenance');

  // The HL7 mapping step: what the messages cannot carry, chosen from the environment's code lists, saved as a
  // profile, imported again.
  const mapping = page.getByRole('region', { name: 'HL7 mapping' });
  for (const [label, value] of [
    ['Payment type', 'Account'],
    ['Courier', 'RMT24'],
    ['Currency', 'GBP'],
  ] as const) {
    await mapping.getByRole('combobox', { name: `Constant for ${label}`, exact: true }).selectOption(value);
  }
  await mapping.getByLabel('Profile name').fill(`J2 clinic ${RUN}`);
  await mapping.getByRole('button', { name: 'Save profile and import again' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Imported 3 orders' })).toContainText(
    '3 valid, 0 with errors',
  );
  await expect(page.getByRole('status', { name: 'Batch counts' })).toContainText('3 valid');
  await expect(grid.getByRole('gridcell', { name: 'RMT24', exact: true })).toHaveCount(3);
  await grid.getByRole('gridcell', { name: 'RMT24', exact: true }).first().click();
  await expect(page.getByRole('complementary', { name: /Order 1/ })).toContainText(
    `A constant of the mapping profile "J2 clinic ${RUN}" (courierCode)`,
  );
  await saveScreenshot(page, 'journey-2-fixed');

  // Forward the original messages: the service gets exactly what the clinic system wrote.
  const preview = page.getByRole('region', { name: /^Preview: journey-2\.hl7/ });
  await preview.getByLabel('Send as').selectOption({ label: 'Forward the HL7 message' });
  await expect(page.getByRole('status', { name: 'Batch counts' })).toContainText('3 valid');
  await page.getByRole('button', { name: 'Accept 3 valid orders' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Accepted 3 orders' })).toBeVisible();

  const messages = hl7.split(/\r(?=MSH\|)/).slice(1);
  await expect(async () => {
    const created = (await sandboxOrders(local)).filter((order) => String(order.clinicOrderId).startsWith(`J2-${RUN}`));
    expect(created.map((order) => order.clinicOrderId).sort()).toEqual([id(1), id(2), id(3)]);
    for (const order of created) {
      const raw = String(order.rawBody);
      expect(raw.startsWith('MSH|')).toBe(true);
      expect(messages.some((m) => m.startsWith(raw))).toBe(true);
      expect(order.route).toBe('hl7');
    }
  }).toPass({ timeout: 30_000, intervals: [500] });

  await openSection(page, 'Orders');
  for (const n of [1, 2, 3]) await expect(page.getByRole('link', { name: id(n), exact: true })).toBeVisible();
  await saveScreenshot(page, 'journey-2-orders');

  // The batch, seen from the contract: nothing left staged.
  const batches = await callBridge(app, 'batches.list', { environmentId: local.id });
  const imports = batches.filter((candidate) => candidate.sourceFileName === 'journey-2.hl7');
  // The first import stays staged with its errors; the one with the profile went out whole.
  expect(imports.map((b) => b.counts)).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ total: 3, accepted: 3, invalid: 0 }),
      expect.objectContaining({ total: 3, accepted: 0, invalid: 3 }),
    ]),
  );
  expect(imports.find((b) => b.counts.accepted === 3)?.route).toBe('hl7');

  // The next file from the same sender: the saved profile is chosen by itself, and says why.
  await openSection(page, 'Import');
  await chooseBatchFile(page, 'journey-2-next.hl7', [...message(4, 8), ...message(5, 12)].join('\r'));
  const next = page.getByRole('status').filter({ hasText: 'Imported 2 orders' });
  await expect(next).toContainText('2 valid, 0 with errors');
  await expect(detected).toContainText(
    `Profile 'J2 clinic ${RUN}' was chosen for sending application '${SENDER}' at facility 'CLINIC-J2' (RDE^O11).`,
  );
  await saveScreenshot(page, 'journey-2-profile-by-sender');
  // …with a way to change it: the same file without the saved profile misses what HL7 cannot carry again.
  await detected.getByRole('button', { name: 'Import again without a saved profile' }).click();
  await expect(next).toContainText('0 valid, 2 with errors');
  await expect(detected).toContainText('No saved profile was asked for: the standard HL7 field map was used.');
  await detected.getByText('Change what was detected').click();
  await detected.getByLabel('Mapping').selectOption({ label: `J2 clinic ${RUN}` });
  await detected.getByRole('button', { name: 'Import again with these settings' }).click();
  await expect(next).toContainText('2 valid, 0 with errors');
  await expect(detected).toContainText(`Profile 'J2 clinic ${RUN}' was chosen for this import.`);

  // A second profile saved for the same sender: said at once, since that sender's files will then ask which to use.
  await mapping.getByLabel('Profile name').fill(`J2 other ${RUN}`);
  await mapping.getByRole('button', { name: 'Save profile and import again' }).click();
  const sameSender = page.getByRole('status').filter({ hasText: 'also saved for' });
  await expect(sameSender).toContainText(`profile 'J2 clinic ${RUN}' is also saved for`);
  await expect(sameSender).toContainText('files from this sender will ask which profile to use');
  await expect(next).toContainText('2 valid, 0 with errors');
  // …and gone once another file is chosen.
  await chooseBatchFile(page, 'journey-2-last.hl7', message(6, 8).join('\r'));
  await expect(page.getByRole('status').filter({ hasText: 'Imported 1 order' })).toBeVisible();
  await expect(sameSender).toHaveCount(0);
  expect(problems).toEqual([]);
});
