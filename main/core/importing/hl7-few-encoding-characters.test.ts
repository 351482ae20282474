import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { inCapitals } from './hl7-stream.js';
import { importFile, type MappingProfile } from './index.js';
import { writeRde011 } from './rde-writer.js';
import { exampleOrder } from './testing/write-fixtures.js';

/**
 * Files whose MSH (and FHS/BHS) give fewer than four encoding characters (`^~\`, `^~`), as older senders write them:
 * detected as HL7, split into their messages and read as orders.
 */

const PROFILE: MappingProfile = {
  name: 'HL7 clinic',
  columns: {},
  constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' },
  valueMaps: {},
};

/** An RDE^O11 with MSH-2 as given; none of its values holds a backslash or `&`. */
function rde(id: string, msh2: string): string {
  const text = writeRde011(exampleOrder(id), { timestamp: '20250101120000' });
  return text.replace('MSH|^~\\&|', `MSH|${msh2}|`).replace(/\r$/, '');
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rx-few-encoding-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function importText(name: string, text: string) {
  const path = join(dir, name);
  await writeFile(path, text);
  return importFile(path, { codeLists: DEFAULT_CODE_LISTS, profile: PROFILE, today: new Date('2025-06-01T00:00:00Z') });
}

describe('an HL7 file whose MSH-2 has fewer than four characters', () => {
  it('an RDE^O11 with MSH|^~\\| is a valid order', async () => {
    const report = await importText('three.hl7', `${rde('F-1', '^~\\')}\r`);
    expect(report.format).toBe('hl7');
    expect(report.fileProblems).toEqual([]);
    expect(report.orders).toHaveLength(1);
    const order = report.orders[0]!;
    expect(order.problems).toEqual([]);
    expect(order).toMatchObject({ valid: true, clinicCode: 'CLINIC-A', clinicOrderId: 'F-1' });
    expect(report.hl7Sender).toEqual({ application: 'RXBATCH', facility: 'CLINIC-A', messageType: 'RDE^O11' });
  });

  it('\\T\\ in a message with no subcomponent separator is text, and the warning says MSH-2 declares none', async () => {
    const text = rde('F-4', '^~\\').replace('Paracetamol 500mg tablets', 'Paracetamol \\T\\ codeine');
    const order = (await importText('no-sub.hl7', `${text}\r`)).orders[0]!;
    expect(order.body).toMatchObject({ prescribedItems: [{ medication: 'Paracetamol \\T\\ codeine' }] });
    expect(order.problems.map((p) => [p.code, p.text])).toEqual([
      [
        'hl7.escapeUnreadable',
        "RXE-2.2: '\\T\\' stands for the subcomponent separator, which this message's MSH-2 does not declare (it has " +
          'no fourth encoding character), so it was read as text. Check the value with the sender.',
      ],
    ]);
  });

  it('MSH|^~| after a comment line is still found as HL7 (detection by structure) and read', async () => {
    const report = await importText(
      'two.hl7',
      `# exported by the clinic system\n${rde('F-2', '^~').split('\r').join('\n')}\n`,
    );
    expect(report.format).toBe('hl7');
    expect(report.orders.map((order) => [order.clinicOrderId, order.valid])).toEqual([['F-2', true]]);
    expect(report.fileProblems.map((p) => p.code)).toEqual(['hl7.strayContent']);
  });

  it('an FHS/BHS batch whose headers have three characters: each message read, counts checked, FHS the sender', async () => {
    const text = [
      'FHS|^~\\|FILE-APP|FILE-FAC',
      'BHS|^~\\|BATCH-APP|BATCH-FAC',
      rde('F-3', '^~\\'),
      rde('F-4', '^~\\'),
      'BTS|2',
      'FTS|1',
    ].join('\r');
    const report = await importText('batch.hl7', `${text}\r`);
    expect(report.fileProblems).toEqual([]);
    expect(report.orders.map((order) => [order.clinicOrderId, order.valid])).toEqual([
      ['F-3', true],
      ['F-4', true],
    ]);
    expect(report.hl7Sender).toEqual({ application: 'FILE-APP', facility: 'FILE-FAC', messageType: 'RDE^O11' });

    const short = await importText('short-batch.hl7', `${text.replace('BTS|2', 'BTS|3')}\r`);
    expect(short.fileProblems.map((p) => p.code)).toEqual(['hl7.batchCount']);
  });

  it('a header in lower case with two encoding characters is still a header', () => {
    expect(inCapitals('msh|^~|RXBATCH', '|')).toBe('MSH|^~|RXBATCH');
    expect(inCapitals('msh|^|RXBATCH', '|')).toBeUndefined();
  });
});
