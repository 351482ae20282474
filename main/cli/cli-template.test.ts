import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCAL_SANDBOX_ID } from '../core/environments/presets.js';
import { runCliCaptured } from './testing/run-cli-captured.js';

/**
 * The README's first hour starts with "Get the template", which only the app's Import screen gave: an admin working
 * from the CLI (a server, a scheduled import) had no way to the template or its column guide but to export a batch
 * they could not yet import. `rx-batch template FILE [--guide FILE]` writes both.
 */

const dir = mkdtempSync(join(tmpdir(), 'rx-cli-template-'));
const dataDir = join(dir, 'data');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = (...args: string[]) => runCliCaptured([...args, '--data-dir', dataDir]);

describe('rx-batch template', () => {
  it('writes the template and its column guide, and the template imports as one valid order', async () => {
    const file = join(dir, 'orders.csv');
    const guide = join(dir, 'columns.txt');
    const run = await cli('template', file, '--guide', guide);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain(`Wrote the CSV template to ${file}`);
    expect(run.stdout).toContain(`rx-batch import ${file} --env ENV`);

    const text = readFileSync(file, 'utf8');
    expect(text.startsWith('\ufeffclinicCode,clinicOrderId,')).toBe(true); // UTF-8 for Excel
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const guideText = readFileSync(guide, 'utf8');
    // The guide names the file as it was written, and explains the coded columns.
    expect(guideText).toContain('the columns of orders.csv');
    expect(guideText).toMatch(/courierCode +courier code \(required\)/);

    const imported = await cli('import', file, '--env', LOCAL_SANDBOX_ID, '--json');
    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ orders: 1, valid: 1, invalid: 0 });
  });

  it('says what to run for the guide when it is not asked for', async () => {
    const run = await cli('template', join(dir, 'only.csv'));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`rx-batch template ${join(dir, 'only.csv')} --guide columns.txt`);
  });

  it('refuses to write through a link, as every export does', async () => {
    const target = join(dir, 'elsewhere.txt');
    writeFileSync(target, 'keep');
    const link = join(dir, 'link.csv');
    symlinkSync(target, link);
    const run = await cli('template', link);
    expect(run.code).toBe(2);
    expect(readFileSync(target, 'utf8')).toBe('keep');
  });
});
