import {
  chownSync,
  linkSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_SANDBOX_ID } from '../core/environments/presets.js';
import { uniqueOrder } from '../core/staging/testing/staging-fixtures.js';
import { runCliCaptured } from './testing/run-cli-captured.js';

/**
 * docs/security.md, finding 17: an export's file name is typed by the admin, often in a folder other users can
 * write to (/tmp, a shared folder). Whatever another user planted at that name beforehand (a link to a file of
 * the admin's or to a system file, a file of their own, a second name of another file) was written through, and
 * as root made 0600 but left in its owner's hands. Each export command refuses those before anything changes.
 */

const SOMEONE_ELSE = 65_534;
let dir: string;
let dataDir: string;
let batch: string;

const cli = (...args: string[]) => runCliCaptured([...args, '--data-dir', dataDir]);
/** The three export commands, each with the file it writes last. */
const exports = (file: string): string[][] => [
  ['batch', 'export', batch, '--template', file],
  ['batch', 'errors', batch, file],
  ['log', 'export', '--format', 'csv', '--out', file],
];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rxbatch-cli-export-targets-'));
  dataDir = join(dir, 'data');
  const orders = join(dir, 'orders.json');
  writeFileSync(orders, JSON.stringify([uniqueOrder({}, 'TARGET')]));
  const imported = await cli('import', orders, '--env', LOCAL_SANDBOX_ID, '--json');
  batch = String((JSON.parse(imported.stdout) as { batchId: number }).batchId);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.runIf(process.platform !== 'win32')('rx-batch export files planted by someone else', () => {
  it('refuses a symbolic link at the name: the file it points to is untouched and the link stays', async () => {
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'the admin’s own notes\n', { mode: 0o644 });
    const link = join(dir, 'shared-export.csv');
    symlinkSync(victim, link);
    for (const args of exports(link)) {
      const run = await cli(...args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain(`${link} is a symbolic link`);
      expect(readFileSync(victim, 'utf8')).toBe('the admin’s own notes\n');
      expect(statSync(victim).mode & 0o777).toBe(0o644);
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
    }
  });

  it('refuses a second name (hard link) of another file', async () => {
    const victim = join(dir, 'victim-linked.txt');
    writeFileSync(victim, 'kept\n', { mode: 0o644 });
    const alias = join(dir, 'alias.csv');
    linkSync(victim, alias);
    for (const args of exports(alias)) {
      const run = await cli(...args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain(`${alias} is also another file`);
      expect(readFileSync(victim, 'utf8')).toBe('kept\n');
    }
  });

  it('refuses a FIFO at once (nobody reading it: the export waited for ever)', async () => {
    const fifo = join(dir, 'fifo.csv');
    execFileSync('mkfifo', [fifo]);
    for (const args of exports(fifo)) {
      const run = await cli(...args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain(`${fifo} is not a regular file`);
    }
  });

  it.runIf(process.getuid?.() === 0)('refuses a file that belongs to another user, leaving it as it was', async () => {
    const planted = join(dir, 'planted.csv');
    writeFileSync(planted, 'theirs\n', { mode: 0o666 });
    chownSync(planted, SOMEONE_ELSE, SOMEONE_ELSE);
    for (const args of exports(planted)) {
      const run = await cli(...args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain(`${planted} belongs to another user`);
      expect(readFileSync(planted, 'utf8')).toBe('theirs\n');
      expect(statSync(planted)).toMatchObject({ uid: SOMEONE_ELSE });
    }
  });

  it('still writes a new file, or over a file of the admin’s own, 0600', async () => {
    const fresh = join(dir, 'fresh.csv');
    for (const args of exports(fresh)) {
      rmSync(fresh, { force: true });
      expect(await cli(...args)).toMatchObject({ code: 0 });
      expect(statSync(fresh).mode & 0o777).toBe(0o600);
      writeFileSync(fresh, 'x'.repeat(100_000), { mode: 0o644 });
      expect(await cli(...args)).toMatchObject({ code: 0 });
      expect(statSync(fresh).mode & 0o777).toBe(0o600);
      expect(readFileSync(fresh, 'utf8')).not.toContain('xxxx');
    }
  });
});
