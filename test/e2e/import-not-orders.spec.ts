import { collectPageProblems, expect, test } from './support/journey-app.js';
import { chooseBatchFile, chooseEnvironment, localSandbox, openSection } from './support/workspace.js';

/**
 * A clinic system's export of patient administration messages (ADT) imported by mistake: "What was found" says
 * that no message of it is an order and which ones would be, where it listed the message types and the preview
 * counted each message as an order with errors, as if a fix could make it one. The preview now counts them apart
 * and offers no errors CSV for them. A file with an order among them says nothing of the kind in its summary.
 */

test.setTimeout(60_000);

const RUN = Date.now().toString(36).toUpperCase();
const adt = (n: number) =>
  [
    `MSH|^~\\&|PAS-${RUN}|CLINIC-N|CLOUDRX|PHARMACY|20261204101500||ADT^A01^ADT_A01|ADT-${RUN}-${n}|P|2.5`,
    'EVN|A01|20261204101500',
    `PID|1||${n}^^^CLINIC-N^MR||Example^Alex||19800115|F`,
  ].join('\r');

test('an HL7 file of no orders says so, and names the message types that are orders', async ({ app, page }) => {
  const problems = collectPageProblems(page);
  const local = await localSandbox(app);
  await page.goto(app.url);
  await chooseEnvironment(page, local.name);
  await openSection(page, 'Import');

  await chooseBatchFile(page, 'admissions.hl7', `${adt(1)}\r${adt(2)}\r`);
  const found = page.getByRole('region', { name: 'What was found' });
  await expect(found).toContainText('ADT^A01 (not an order)');
  const note = found.getByRole('note');
  await expect(note).toContainText('No message in this file is an order');
  await expect(note).toContainText('RDE^O11, RDE^O01, OMP^O09 or ORM^O01 with an RXO item');
  // The preview counts them for what they are, and offers no errors CSV: no fix in it makes an ADT an order.
  const preview = page.getByRole('region', { name: /^Preview: admissions\.hl7/ });
  await expect(preview.getByRole('status', { name: 'Batch counts' })).toContainText(
    '2 with errors (2 of them no order at all)',
  );
  await expect(preview).toContainText('Nothing here can be accepted: 2 messages cannot become orders');
  await expect(preview.getByRole('button', { name: 'Export errors as CSV' })).toBeDisabled();

  const order = [
    `MSH|^~\\&|EPR-${RUN}|CLINIC-N|CLOUDRX|PHARMACY|20261204101500||RDE^O11^RDE_O11|RDE-${RUN}|P|2.5`,
    'PID|1||||Example^Alex^^^Ms||19800115|F|||1 High Street^^Leeds^^LS1 4AP^GBR',
    `ORC|NW|N-${RUN}||||||||||7123456^Dr Jane Smith`,
    'RXE||42109611000001109^Paracetamol 500mg tablets^DMD|||||^Two tablets daily|||32',
  ].join('\r');
  await chooseBatchFile(page, 'mixed.hl7', `${adt(3)}\r${order}\r`);
  await expect(found).toContainText('ADT^A01 (not an order), RDE^O11');
  await expect(found.getByRole('note')).toHaveCount(0);
  const mixed = page.getByRole('region', { name: /^Preview: mixed\.hl7/ });
  await expect(mixed.getByRole('status', { name: 'Batch counts' })).toContainText('(1 of them no order at all)');
  await expect(mixed).toContainText('1 message cannot become an order');
  await expect(mixed.getByRole('button', { name: 'Export errors as CSV' })).toBeEnabled();
  expect(problems).toEqual([]);
});
