import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { templateCsv, uniqueOrder, withField } from '../core/staging/testing/staging-fixtures.js';
import { REPO_ROOT } from './testing/run-cli-process.js';
import { runCliCaptured } from './testing/run-cli-captured.js';

/**
 * docs/security.md, finding 19: finding 14 made the CLI's text lines safe, but `--json` output and `log export` to
 * standard output were left as they were, said to be escaped by JSON. JSON.stringify escapes only C0: DEL and the
 * C1 controls (an 8-bit CSI U+009B, OSC U+009D, which xterm reads in UTF-8 too) went to the terminal raw, and a CSV
 * export on the terminal carried every control of a clinic's cell or file name as it was.
 */

/* eslint-disable no-control-regex */
const C1_OR_DEL = /[\x7f-\x9f]/;
const ANY_CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/;
/* eslint-enable no-control-regex */

// An 8-bit OSC 52 (write the clipboard) ended by an 8-bit ST, an 8-bit CSI that erases the screen, and a DEL.
const OSC52 = '\x9d52;c;cm0gLXJmIH4=\x9c';
const ERASE = '\x9b2J\x7f';
const EMAIL = `alex${OSC52}${ERASE}@example.test`;
const FILE_NAME = 'clinic\x1b]0;pwned\x07\x9b8m.csv';

let dir: string;
let dataDir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rxbatch-cli-terminal-json-'));
  dataDir = join(dir, 'data');
  const file = join(dir, FILE_NAME);
  writeFileSync(file, templateCsv([withField(uniqueOrder({}, 'TTYJ'), 'customer.email', EMAIL)]));
  await runCliCaptured(['import', file, '--env', 'local-sandbox', '--data-dir', dataDir]);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The CLI run in a real pseudo-terminal (util-linux `script`): what the admin's terminal is sent. */
function inTerminal(args: string[]): string {
  const command = [process.execPath, '--import', 'tsx', join(REPO_ROOT, 'main/cli.ts'), ...args]
    .map((part) => `'${part.replaceAll("'", "'\\''")}'`)
    .join(' ');
  return execFileSync('script', ['-qec', command, '/dev/null'], {
    cwd: REPO_ROOT,
    env: { ...process.env, NO_COLOR: '1' },
    encoding: 'utf8',
  });
}

describe('JSON output and exports on standard output carry no terminal commands', () => {
  it('batch show --json escapes C1 controls and DEL, and still parses to the cell exactly', async () => {
    const shown = await runCliCaptured(['batch', 'show', '1', '--json', '--data-dir', dataDir]);
    expect(shown.stdout).not.toMatch(C1_OR_DEL);
    const document = JSON.parse(shown.stdout) as { orders: Array<{ body: { customer: { email: string } } }> };
    expect(document.orders[0]!.body.customer.email).toBe(EMAIL);
  });

  it('log export --format jsonl to standard output does the same (the file name, unmasked)', async () => {
    const exported = await runCliCaptured(['log', 'export', '--format', 'jsonl', '--unmask', '--data-dir', dataDir]);
    expect(exported.code).toBe(0);
    expect(exported.stdout).not.toMatch(C1_OR_DEL);
    const entries = exported.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { action: string; details: Record<string, unknown> });
    expect(entries.find((entry) => entry.action === 'batch.imported')?.details.fileName).toBe(FILE_NAME);
  });

  it.runIf(process.platform === 'linux')(
    'log export --format csv shows controls as visible escapes on a terminal, and exactly into a pipe',
    async () => {
      const onTerminal = inTerminal(['log', 'export', '--format', 'csv', '--unmask', '--data-dir', dataDir]);
      expect(onTerminal).toContain('batch.imported');
      expect(onTerminal).not.toMatch(ANY_CONTROL);
      expect(onTerminal).toContain('clinic\\u001b]0;pwned\\u0007\\u009b8m.csv');

      const piped = await runCliCaptured(['log', 'export', '--format', 'csv', '--unmask', '--data-dir', dataDir]);
      expect(piped.stdout).toContain(FILE_NAME);
    },
    60_000,
  );
});
