import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_SANDBOX_ID } from '../core/environments/presets.js';
import { uniqueOrder } from '../core/staging/testing/staging-fixtures.js';
import { runCliCaptured } from './testing/run-cli-captured.js';

/**
 * "What happened to ORD-3?" The Log screen filters by clinic order id, action and text, but `log export` only wrote
 * the whole log, with clinic order ids masked: an admin without the app could not find one order's entries (a grep
 * for its id finds nothing in the masked export). `log export` now takes the screen's filters.
 */

interface Line {
  action: string;
  clinicOrderId: string | null;
}

describe('rx-batch log export with the Log screen’s filters', () => {
  let dir: string;
  let dataDir: string;
  const kept = uniqueOrder({}, 'KEEP');
  const dropped = uniqueOrder({}, 'DROP');
  const cli = (...args: string[]) => runCliCaptured([...args, '--data-dir', dataDir]);
  const lines = (text: string) =>
    text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Line);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rx-cli-log-filter-'));
    dataDir = join(dir, 'data');
    const file = join(dir, 'orders.json');
    writeFileSync(file, JSON.stringify([kept, dropped]));
    const imported = await cli('import', file, '--env', LOCAL_SANDBOX_ID, '--json');
    const { batchId } = JSON.parse(imported.stdout) as { batchId: number };
    expect((await cli('accept', String(batchId))).code).toBe(0);
    // Unsent, so withdrawn at once: an order entry of its own, without a service.
    const cancelled = await cli('cancel', dropped.prescription.clinicOrderId, '--reason', 'Prescriber withdrew it');
    expect(cancelled.code).toBe(0);
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes only the entries of the orders with that clinic order id', async () => {
    const id = dropped.prescription.clinicOrderId;
    const run = await cli('log', 'export', '--format', 'jsonl', '--unmask', '--clinic-order-id', id);
    expect(run.code).toBe(0);
    const entries = lines(run.stdout);
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.every((entry) => entry.clinicOrderId === id)).toBe(true);
    expect(entries.map((entry) => entry.action)).toContain('order.withdrawn');
  });

  it('filters by an action prefix and says "matching" for a file', async () => {
    const out = join(dir, 'withdrawn.csv');
    const run = await cli('log', 'export', '--format', 'csv', '--action', 'order.withdrawn', '--out', out);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`Exported 1 matching audit entries to ${out} (clinic order ids masked).\n`);
    const rows = readFileSync(out, 'utf8').trim().split('\n');
    expect(rows).toHaveLength(2); // the header and the one entry
    expect(rows[1]).toContain('order.withdrawn');
  });

  it('writes nothing when no entry matches, and names a bad filter', async () => {
    const out = join(dir, 'none.csv');
    const none = await cli('log', 'export', '--format', 'csv', '--clinic-order-id', 'NOT-AN-ORDER', '--out', out);
    expect(none).toMatchObject({ code: 0, stdout: '' });
    expect(none.stderr).toContain('No audit entry matches these filters; nothing was written.');
    expect(existsSync(out)).toBe(false);
    const blank = await cli('log', 'export', '--format', 'csv', '--search', ' ');
    expect(blank.code).toBe(2);
    expect(blank.stderr).toContain('--search: needs a value');
  });
});
