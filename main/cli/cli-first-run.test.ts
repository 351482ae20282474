import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from './testing/run-cli-captured.js';

/**
 * What a new admin meets first. `env list` on a fresh data folder said the local sandbox had "no client id" at
 * "http://127.0.0.1/", as if something had to be set up; and a mistyped option got Node's own advice to pass it
 * after `--` as an argument, which no command takes.
 */

const dir = mkdtempSync(join(tmpdir(), 'rx-cli-first-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('rx-batch on a fresh data folder', () => {
  it('lists the local sandbox as not started yet, not as missing a client id', async () => {
    const run = await runCliCaptured(['env', 'list', '--data-dir', join(dir, 'fresh')]);
    expect(run.code).toBe(0);
    const line = run.stdout.split('\n').find((text) => text.startsWith('local-sandbox'));
    expect(line).toMatch(
      /^local-sandbox\s+client_credentials\s+not started\s+\(started by the commands that use it\)$/,
    );
  });

  it('names a mistyped option and the command’s own options', async () => {
    const run = await runCliCaptured([
      'env',
      'add',
      'prod',
      '--api-base-url',
      'https://rx.example/',
      '--data-dir',
      join(dir, 'typo'),
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("rx-batch env add has no option '--api-base-url' (its options: --api, --issuer, ");
    expect(run.stderr).not.toContain("after '--'");
  });
});
