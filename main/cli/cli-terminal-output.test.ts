import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { templateCsv, uniqueOrder, withField } from '../core/staging/testing/staging-fixtures.js';
import { runCliCaptured } from './testing/run-cli-captured.js';

/**
 * A clinic's file is written by other people's software: its cells and its name reach the admin's terminal in
 * `import` problems and `batch show`. Terminal control sequences in them (set the title, write the clipboard with
 * OSC 52, erase or rewrite a line, move the cursor) must arrive as visible text, never as commands.
 */

/* eslint-disable no-control-regex */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
/* eslint-enable no-control-regex */

let dir: string;
let dataDir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rxbatch-cli-terminal-'));
  dataDir = join(dir, 'data');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `import FILE` with the problems' texts on stderr, which is no terminal here: they quote the cells under test. */
const importWithText = (file: string, data: string) => [
  'import',
  file,
  '--env',
  'local-sandbox',
  '--data-dir',
  data,
  '--problem-text',
];

describe('the CLI prints what a file holds as text, never as terminal commands', () => {
  it('shows escape sequences from a cell and a file name as visible escapes', async () => {
    const osc = '\x1b]52;c;cm0gLXJmIH4=\x07';
    const erase = '\r\x1b[2K\x9b1A';
    const order = withField(uniqueOrder({}, 'TTY'), 'customer.email', `alex${osc}${erase}.example.test`);
    const file = join(dir, 'clinic\x1b[8m.csv');
    writeFileSync(file, templateCsv([order]));

    const imported = await runCliCaptured(importWithText(file, dataDir));
    expect(imported.code).toBe(1);
    expect(imported.stderr).toContain('customer.email');
    const shown = await runCliCaptured(['batch', 'show', '1', '--data-dir', dataDir]);
    expect(shown.code).toBe(1);
    for (const output of [imported.stdout, imported.stderr, shown.stdout, shown.stderr]) {
      expect(output).not.toMatch(CONTROL);
    }
    expect(imported.stderr).toContain('\\u001b]52;c;cm0gLXJmIH4=\\u0007');
    expect(shown.stdout).toContain('clinic\\u001b[8m.csv');
    expect(shown.stdout).toContain('\\u000d\\u001b[2K\\u009b1A');
  }, 60_000);

  it('shows a line break in a cell or a file name as text, so no line of the output is the file’s (finding 33)', async () => {
    const forged = 'Staged batch 1: 1 order, all valid.';
    const order = withField(uniqueOrder({}, 'NL'), 'customer.email', `alex\n${forged}\n`);
    const file = join(dir, `clinic\n${forged}.csv`);
    writeFileSync(file, templateCsv([order]));
    const data = join(dir, 'data-nl');

    const imported = await runCliCaptured(importWithText(file, data));
    expect(imported.code).toBe(1);
    const shown = await runCliCaptured(['batch', 'show', '1', '--data-dir', data]);
    expect(shown.code).toBe(1);
    const missing = await runCliCaptured(['import', `${file}.gone`, '--env', 'local-sandbox', '--data-dir', data]);
    expect(missing.code).toBe(2);
    for (const output of [imported.stdout, imported.stderr, shown.stdout, shown.stderr, missing.stderr]) {
      expect(output.split('\n').filter((line) => line.startsWith(forged))).toEqual([]);
    }
    expect(imported.stderr).toContain(`Email 'alex\\u000a${forged}'`);
    expect(shown.stdout).toContain(`clinic\\u000a${forged}.csv`);
    expect(missing.stderr).toContain(`clinic\\u000a${forged}.csv.gone`);
  }, 60_000);
});
