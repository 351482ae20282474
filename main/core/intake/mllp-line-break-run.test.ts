import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { RawMllpSocket, frame } from '../../../test/support/hl7-client.js';
import { importFile } from '../importing/import-file.js';
import { writeRde011 } from '../importing/rde-writer.js';
import { uniqueOrder } from '../staging/testing/staging-fixtures.js';
import { MLLP_SENDER, mllpIntakePerTest } from './testing/mllp-intake.js';

/**
 * docs/security.md, finding 67: every message and file is looked at for an MSH-18 in its first 64 KB, with a pattern
 * that started again from each line break of a run of them and ran to the run's end. A message opening with 70,000
 * line breaks (white space before MSH is allowed) held the core's loop 3.8 s, so any local user sending such frames
 * to the app's intake held it for good. The real listener and intake over loopback, real SQLite, a real file.
 */

const start = mllpIntakePerTest();
const LINE_BREAKS = '\n'.repeat(70_000);

/** The longest the loop went without running a 5 ms timer while `work` ran. */
async function longestStall<T>(work: () => Promise<T>): Promise<{ result: T; stallMs: number }> {
  let last = performance.now();
  let stallMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 5);
  try {
    return { result: await work(), stallMs };
  } finally {
    clearInterval(timer);
  }
}

describe('a long run of line breaks before the MSH', () => {
  it('over MLLP: the message is answered without holding the loop', async () => {
    const r = await start({ mode: 'hold' });
    const socket = await RawMllpSocket.open(r.port);
    const message = writeRde011(uniqueOrder({}, 'RUN'), {
      controlId: 'RUN-1',
      timestamp: '20261202101500',
      ...MLLP_SENDER,
    });
    const { result, stallMs } = await longestStall(async () => {
      socket.write(frame(LINE_BREAKS + message));
      return socket.waitFor(1, 60_000);
    });
    socket.close();
    expect([result[0]?.get('MSA.1'), result[0]?.get('MSA.2')]).toEqual(['AA', 'RUN-1']);
    expect(stallMs).toBeLessThan(1_000);
  }, 90_000);

  it('in a file: the import is quick', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rx-line-breaks-'));
    try {
      const path = join(dir, 'orders.csv');
      writeFileSync(path, `${LINE_BREAKS}surname,firstName\nExample,Alex\n`);
      const started = performance.now();
      const report = await importFile(path, { codeLists: DEFAULT_CODE_LISTS });
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(report.format).toBe('csv');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
