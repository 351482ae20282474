import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { importFile, type MappingProfile } from './index.js';
import { writeRde011 } from './rde-writer.js';
import { exampleOrder } from './testing/write-fixtures.js';

/**
 * A segment wrapped onto a second line (a mail client, an 80-column viewer or a paste breaks it) loses its later
 * fields. The tail is the message's, not text between messages, and the order is refused saying so, never sent
 * without the fields the tail held.
 */

const PROFILE: MappingProfile = {
  name: 'HL7 clinic',
  columns: {},
  constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' },
  valueMaps: {},
};
const SEGMENTS = writeRde011(exampleOrder('W-1'), { timestamp: '20250101120000' })
  .split('\r')
  .filter((s) => s !== '');
const RXE = SEGMENTS.findIndex((s) => s.startsWith('RXE|'));

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rx-wrapped-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The message with its RXE broken before `at` (a character index), and the segments after it dropped or kept. */
async function importWrapped(at: (rxe: string) => number, keepAfter: boolean) {
  const rxe = SEGMENTS[RXE]!;
  const cut = at(rxe);
  const lines = [
    ...SEGMENTS.slice(0, RXE),
    rxe.slice(0, cut),
    rxe.slice(cut),
    ...(keepAfter ? SEGMENTS.slice(RXE + 1) : []),
  ];
  const path = join(dir, 'wrapped.hl7');
  await writeFile(path, lines.join('\r\n') + '\r\n');
  return importFile(path, { codeLists: DEFAULT_CODE_LISTS, profile: PROFILE, today: new Date('2025-06-01T00:00:00Z') });
}

const beforeField = (n: number) => (rxe: string) => rxe.split('|').slice(0, n).join('|').length;

describe('a segment wrapped onto a second line', () => {
  it('the unwrapped message is a valid order', async () => {
    const report = await importWrapped(() => SEGMENTS[RXE]!.length, false);
    expect(report.orders[0]!.valid).toBe(true);
  });

  it.each([
    ['at a field separator, as the last segment', beforeField(7), false],
    ['at a field separator, between segments', beforeField(7), true],
    ['inside a value, as the last segment', (rxe: string) => beforeField(8)(rxe) - 3, false],
  ] as const)(
    '%s: one hl7.wrappedSegment error on the order naming the line, not a file warning',
    async (_, at, keep) => {
      const report = await importWrapped(at, keep);
      expect(report.fileProblems.map((p) => p.code)).not.toContain('hl7.strayContent');
      const order = report.orders[0]!;
      expect(order.valid).toBe(false);
      const wrapped = order.problems.filter((p) => p.code === 'hl7.wrappedSegment');
      expect(wrapped).toHaveLength(1);
      expect(wrapped[0]).toMatchObject({ severity: 'error', file: 'wrapped.hl7', message: 1 });
      expect(wrapped[0]!.text).toContain(
        `Line ${RXE + 2} of message 1 is no segment but holds the field separator '|'`,
      );
    },
  );

  it('a comment line after a blank line is still text between messages, for the file', async () => {
    const path = join(dir, 'comment.hl7');
    await writeFile(path, [...SEGMENTS, '', '# end of export | page 1', ''].join('\r\n'));
    const report = await importFile(path, {
      codeLists: DEFAULT_CODE_LISTS,
      profile: PROFILE,
      today: new Date('2025-06-01T00:00:00Z'),
    });
    expect(report.fileProblems.map((p) => p.code)).toContain('hl7.strayContent');
    expect(report.orders[0]!.valid).toBe(true);
  });

  it.each([
    [
      'PIDX',
      " It may instead be a segment whose name is misspelt: it starts 'PIDX|', and segment names have three characters ('PID'?); if so, ask the sender to correct it.",
    ],
    [
      'PV',
      " It may instead be a segment whose name is misspelt: it starts 'PV|', and segment names have three characters; if so, ask the sender to correct it.",
    ],
  ])('a line starting like a segment named %s says it may be a misspelt segment name too', async (name, said) => {
    const path = join(dir, 'misnamed.hl7');
    const pid = SEGMENTS.findIndex((s) => s.startsWith('PID|'));
    const lines = SEGMENTS.map((s, i) => (i === pid ? `${name}${s.slice(3)}` : s));
    await writeFile(path, lines.join('\r') + '\r');
    const report = await importFile(path, {
      codeLists: DEFAULT_CODE_LISTS,
      profile: PROFILE,
      today: new Date('2025-06-01T00:00:00Z'),
    });
    const wrapped = report.orders[0]!.problems.filter((p) => p.code === 'hl7.wrappedSegment');
    expect(wrapped).toHaveLength(1);
    expect(wrapped[0]!.text.endsWith(said)).toBe(true);
  });

  it('a wrapped tail that does not start like a segment name says nothing of names', async () => {
    const report = await importWrapped(beforeField(7), false);
    const wrapped = report.orders[0]!.problems.find((p) => p.code === 'hl7.wrappedSegment');
    expect(wrapped!.text).not.toContain('misspelt');
  });
});
