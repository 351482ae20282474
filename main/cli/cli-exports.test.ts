import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasFormulaStart } from '../../shared/csv-formula.js';
import { LOCAL_SANDBOX_ID } from '../core/environments/presets.js';
import { uniqueOrder, withField } from '../core/staging/testing/staging-fixtures.js';
import { runCliCaptured } from './testing/run-cli-captured.js';

// Issue #12, findings 5, 7 and 8 through the CLI: `batch export --template`, `batch errors` and `log export` write
// CSV files a spreadsheet can open safely (no cell starts with a formula character), each export is in the audit
// log with its kind and counts, and the masked log export does not show the imported file's name. In process (the
// commands exactly as the `rx-batch` entry runs them), on the data directory's built-in local environment.
describe('rx-batch exports: safe CSV, audited, file names masked', () => {
  let dir: string;
  let dataDir: string;

  const cli = (...args: string[]) => runCliCaptured([...args, '--data-dir', dataDir]);

  /** The cells of a written CSV as a spreadsheet reads them, those that would run as formulas. */
  function formulaCells(text: string): string[] {
    expect(text.startsWith('\ufeff')).toBe(true); // written "for Excel"
    const parsed = Papa.parse<string[]>(text.slice(1), { skipEmptyLines: true });
    expect(parsed.errors).toEqual([]);
    return parsed.data.flat().filter(hasFormulaStart);
  }

  /** A JSON batch of one valid order in the test folder; returns its path. */
  function writeOrders(name: string): string {
    const file = join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify([uniqueOrder({}, name.toUpperCase())]));
    return file;
  }

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rxbatch-cli-exports-'));
    dataDir = join(dir, 'data');
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes the template and error exports without live formulas, and records each in the log', async () => {
    const hostile = withField(
      withField(
        withField(uniqueOrder({}, 'CLIX'), 'customer.surname', '=HYPERLINK("http://evil.test","x")'),
        'customer.telephone',
        '-0161 496 0123',
      ),
      'prescribedItems.0.dosageInstructions',
      '@SUM(1)\n=1+1',
    );
    const invalid = withField(withField(hostile, 'homeAddress.postCode', 'XX'), 'prescription.clinicOrderId', 'CLIX-1');
    const file = join(dir, 'Wollstonecraft Mariana.json');
    writeFileSync(file, JSON.stringify([hostile, invalid]));
    const imported = await cli('import', file, '--env', LOCAL_SANDBOX_ID, '--json');
    expect(imported.code).toBe(1); // one order needs fixing
    const batch = String((JSON.parse(imported.stdout) as { batchId: number }).batchId);

    const template = join(dir, 'template.csv');
    expect(await cli('batch', 'export', batch, '--template', template)).toMatchObject({ code: 0 });
    const templateText = readFileSync(template, 'utf8');
    expect(templateText).toContain(`"'=HYPERLINK(""http://evil.test"",""x"")"`);
    expect(formulaCells(templateText)).toEqual([]);

    const errors = join(dir, 'errors.csv');
    expect(await cli('batch', 'errors', batch, errors)).toMatchObject({ code: 0 });
    expect(formulaCells(readFileSync(errors, 'utf8'))).toEqual([]);

    const log = join(dir, 'log.csv');
    const logExport = await cli('log', 'export', '--format', 'csv', '--out', log);
    expect(logExport).toMatchObject({ code: 0 });
    // Progress on stderr, never in the file or on stdout.
    expect(logExport.stderr).toMatch(/^Exporting the audit log: \d+ of \d+ entries \(100%\)$/m);
    const logText = readFileSync(log, 'utf8');
    const [header, ...rows] = Papa.parse<string[]>(logText, { skipEmptyLines: true }).data;
    const column = (name: string) => header!.indexOf(name);
    const row = (action: string) => rows.find((cells) => cells[column('action')] === action);
    expect(row('batch.template.exported')?.[column('batch_id')]).toBe(batch);
    expect(row('batch.template.exported')?.[column('orderCount')]).toBe('2');
    expect(row('batch.template.exported')?.[column('rowCount')]).toBe('2');
    expect(row('batch.errors.exported')?.[column('orderCount')]).toBe('1');
    expect(row('batch.errors.exported')?.[column('rowCount')]).toBe('1');
    expect(rows.flat().filter(hasFormulaStart)).toEqual([]);
    // Masked by default: the imported file's name too, its extension kept.
    expect(logText).not.toContain('Wollstonecraft');
    expect(row('batch.imported')?.[column('fileName')]).toBe(`${'*'.repeat('Wollstonecraft Mariana'.length)}.json`);

    const full = await cli('log', 'export', '--format', 'jsonl', '--unmask');
    const entries = full.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { action: string; details: Record<string, unknown> });
    expect(entries.find((entry) => entry.action === 'batch.imported')?.details.fileName).toBe(
      'Wollstonecraft Mariana.json',
    );
    // The CSV log export above recorded itself with the number of entries it held.
    expect(entries.filter((entry) => entry.action === 'log.exported')).toEqual([
      expect.objectContaining({ details: { format: 'csv', masked: true, rowCount: rows.length } }),
    ]);
  });

  it('stops a log export on SIGINT/SIGTERM: the half-written file removed, nothing recorded as exported', async () => {
    const target = join(dir, 'stopped-log.csv');
    const stopped = new AbortController();
    stopped.abort();
    const exportsBefore = (await cli('log', 'export', '--format', 'jsonl')).stdout.match(/"log\.exported"/g)?.length;
    const { code, stderr } = await runCliCaptured(
      ['log', 'export', '--format', 'csv', '--out', target, '--data-dir', dataDir],
      stopped.signal,
    );
    expect(code).toBe(1);
    expect(stderr).toContain(`Export stopped: ${target} removed; nothing was recorded as exported.`);
    expect(existsSync(target)).toBe(false);
    const exportsAfter = (await cli('log', 'export', '--format', 'jsonl')).stdout.match(/"log\.exported"/g)?.length;
    // The stdout export in between recorded itself once; the stopped one did not.
    expect(exportsAfter).toBe((exportsBefore ?? 0) + 1);
  });

  it.skipIf(process.platform === 'win32')(
    'makes an export private even when it writes over a readable file',
    async () => {
      const imported = await cli('import', writeOrders('private'), '--env', LOCAL_SANDBOX_ID, '--json');
      const batch = String((JSON.parse(imported.stdout) as { batchId: number }).batchId);
      const outputs: Array<[string, string[]]> = [
        [join(dir, 'old-template.csv'), ['batch', 'export', batch, '--template']],
        [join(dir, 'old-errors.csv'), ['batch', 'errors', batch]],
        [join(dir, 'old-log.csv'), ['log', 'export', '--format', 'csv', '--out']],
      ];
      for (const [file, args] of outputs) {
        writeFileSync(file, 'left by someone\n', { mode: 0o644 });
        chmodSync(file, 0o644);
        expect(await cli(...args, file)).toMatchObject({ code: 0 });
        expect(statSync(file).mode & 0o777, file).toBe(0o600);
      }
    },
  );
});
