import { describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import type { MappingProfile } from '../model/mapping-profile.js';
import { Hl7Splitter } from './hl7-stream.js';
import { importHl7Message } from './import-message.js';
import { writeRde011 } from './rde-writer.js';
import { exampleOrder } from './testing/write-fixtures.js';

/**
 * Two message files joined (`copy /b a.hl7+b.hl7`, `cat`) where the first does not end in a line break, as many
 * systems write a message: the second MSH runs on from the first message's last segment (`RXE|…|0MSH|^~\&|…`). It
 * was read as one message holding two orders, RXE-12 '0MSH', told in errors about that, with nothing said of the
 * join. The MSH is now split off as the next message's, with a file warning naming the line.
 */

const PROFILE: MappingProfile = {
  name: 'HL7 clinic',
  columns: {},
  constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' },
  valueMaps: {},
};

const M1 = writeRde011(exampleOrder('J-1'), { timestamp: '20250101120000', controlId: 'J1' });
const M2 = writeRde011(exampleOrder('J-2'), { timestamp: '20250101120000', controlId: 'J2' });

describe('message files joined with no line break between them', () => {
  it.each([
    ['directly', `${M1}${M2}\r`],
    ['with the second file’s byte order mark', `\ufeff${M1}\ufeff${M2}`],
  ])('%s: read as two valid orders, with a warning naming the line', async (_name, text) => {
    const report = await importHl7Message(Buffer.from(text), 'joined.hl7', {
      codeLists: DEFAULT_CODE_LISTS,
      profile: PROFILE,
      today: new Date('2025-06-01T00:00:00Z'),
    });
    expect(report.orders.map((o) => [o.order.clinicOrderId, o.order.valid, o.order.problems])).toEqual([
      ['J-1', true, []],
      ['J-2', true, []],
    ]);
    const joined = report.report.fileProblems.filter((p) => p.code === 'hl7.messagesJoined');
    expect(joined).toMatchObject([{ severity: 'warning', file: 'joined.hl7' }]);
    expect(joined[0]!.text).toContain('Line 4');
    expect(joined[0]!.text).toContain("'0'");
  });

  it('a message’s own text naming MSH is not split', () => {
    const splitter = new Hl7Splitter('f.hl7');
    const text = `${M1.replace('Two tablets', 'See MSH segment')}\r`;
    const messages = [...splitter.push(text), ...splitter.end()];
    expect(messages).toHaveLength(1);
    expect(splitter.problems).toEqual([]);
  });
});

describe('a byte order mark inside the file, on a line of its own message', () => {
  it('is said as the mark of a joined file, not as an indent', async () => {
    const report = await importHl7Message(Buffer.from(`\ufeff${M1}\r\n\ufeff${M2}\r\n`), 'joined.hl7', {
      codeLists: DEFAULT_CODE_LISTS,
      profile: PROFILE,
      today: new Date('2025-06-01T00:00:00Z'),
    });
    expect(report.orders.map((o) => o.order.valid)).toEqual([true, true]);
    expect(report.report.fileProblems.map((p) => p.code)).toEqual(['hl7.byteOrderMark']);
    expect(report.report.fileProblems[0]!.text).toContain('Line 5');
  });
});
