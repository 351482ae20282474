import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { templateCsv, uniqueOrder, withField } from '../core/staging/testing/staging-fixtures.js';
import { runCliCaptured } from './testing/run-cli-captured.js';

// `batch list`: how an admin who runs only the CLI (or `serve`, whose day batches it makes unattended) finds the
// numbers `batch show` and `accept` take, a page at a time, however many batches there are.
describe('rx-batch batch list', () => {
  let dir: string;
  const cli = (...args: string[]) => runCliCaptured([...args, '--data-dir', join(dir, 'data')]);
  const ids: number[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rxbatch-cli-batch-list-'));
    for (let i = 0; i < 3; i += 1) {
      const orders =
        i === 1 ? [uniqueOrder(), withField(uniqueOrder(), 'homeAddress.postCode', 'XX')] : [uniqueOrder()];
      const file = join(dir, `day-${i}.csv`);
      writeFileSync(file, templateCsv(orders));
      const imported = await cli('import', file, '--env', 'local-sandbox', '--json');
      ids.push((JSON.parse(imported.stdout) as { batchId: number }).batchId);
    }
  }, 60_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lists the newest first with each number and its counts, and names the command for the next page', async () => {
    const first = await cli('batch', 'list', '--limit', '2');
    expect(first.code).toBe(0);
    const lines = first.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^batch\s+imported \(UTC\)\s+environment\s+orders\s+valid\s+invalid\s+accepted\s+file$/);
    expect(lines[1]).toMatch(
      new RegExp(
        `^\\s*${ids[2]}\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\s+local-sandbox\\s+1\\s+1\\s+0\\s+0\\s+day-2\\.csv$`,
      ),
    );
    expect(lines[2]).toMatch(new RegExp(`^\\s*${ids[1]}\\s.*local-sandbox\\s+2\\s+1\\s+1\\s+0\\s+day-1\\.csv$`));
    expect(lines[3]).toBe(`Older batches: rx-batch batch list --before ${ids[1]}`);
    expect(lines).toHaveLength(4);

    const next = await cli('batch', 'list', '--limit', '2', '--before', String(ids[1]));
    expect(next.stdout).toContain('day-0.csv');
    expect(next.stdout).not.toContain('Older batches');
    expect((await cli('batch', 'list', '--before', String(ids[0]))).stdout).toBe(`No batch before batch ${ids[0]}.\n`);
  });

  it('prints the batches as JSON, keeps to --env, and refuses a bad --limit or an unknown environment', async () => {
    const json = await cli('batch', 'list', '--env', 'local-sandbox', '--json');
    const listed = JSON.parse(json.stdout) as Array<{ id: number; sourceFileName: string; counts: { total: number } }>;
    expect(listed.map((batch) => batch.id)).toEqual([...ids].reverse());
    expect(listed[1]).toMatchObject({ sourceFileName: 'day-1.csv', counts: { total: 2 } });

    const zero = await cli('batch', 'list', '--limit', '0');
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('--limit takes a whole number from 1 to 500, not "0"');
    const unknown = await cli('batch', 'list', '--env', 'nowhere');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('there is no environment "nowhere"; there are local-sandbox,');
    expect(unknown.stderr).toContain('(rx-batch env list)');
  });
});
