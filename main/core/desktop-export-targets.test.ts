import { execFileSync } from 'node:child_process';
import { chownSync, linkSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ContractError } from '../../shared/errors.js';
import type { DesktopIntegration } from './desktop-handlers.js';
import { LOCAL_SANDBOX_ID } from './environments/presets.js';
import { openTestCore, type TestCore } from './testing/test-core.js';
import { templateCsv, uniqueOrder, withField } from './staging/testing/staging-fixtures.js';

/**
 * Finding 63: the desktop app's exports (the audit log, a batch's errors or template) were written with `w` to the
 * path chosen in the native save dialog. That dialog may be in a folder others write to (/tmp, a shared folder),
 * and choosing a name someone planted there (the dialog asks "replace?") wrote through it: a link to a file of the
 * admin's was followed, a second name of another file overwrote that file, a FIFO hung the export, and a file of
 * another user's was emptied. A real core, a desktop whose save dialog answers the planted path, real files.
 */

const SOMEONE_ELSE = 65534;

/** The call is refused as forbidden, with a sentence saying why. */
async function refused(run: () => Promise<unknown>, words: string): Promise<void> {
  const error: unknown = await run().then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ContractError);
  expect((error as ContractError).code).toBe('forbidden');
  expect((error as ContractError).message).toContain(words);
}

describe("the desktop app's exports to a name someone planted", () => {
  let t: TestCore;
  let answer: string;
  let shared: string;
  let victim: string;

  beforeEach(async () => {
    const desktop = {
      chooseFiles: () => Promise.resolve({ paths: [], skipped: [] }),
      takeImportRequests: () => ({ paths: [], skipped: [] }),
      openDataFolder: () => Promise.resolve({}),
      chooseSavePath: () => Promise.resolve(answer),
      confirm: () => Promise.resolve(true),
    } satisfies DesktopIntegration;
    t = await openTestCore('desktop-export-targets', { desktop });
    shared = join(t.dir, 'shared');
    mkdirSync(shared, { mode: 0o1777 });
    victim = join(t.dir, 'own-file.txt');
    writeFileSync(victim, 'the admin’s own file\n', { mode: 0o644 });
  });
  afterEach(() => t.close());

  async function batchWithErrors(): Promise<number> {
    const path = join(t.dir, 'in.csv');
    writeFileSync(path, templateCsv([withField(uniqueOrder({}, 'PLT'), 'customer.email', 'not-an-email')]));
    const outcome = await t.api.call('import.file', { environmentId: LOCAL_SANDBOX_ID, path });
    if (outcome.status !== 'staged') throw new Error(`expected a staged batch, got ${outcome.status}`);
    return outcome.batchId;
  }

  const exports = {
    log: () => t.api.call('log.export', { format: 'csv', unmask: true }),
    errors: async () => t.api.call('batches.exportErrors', { batchId: await batchWithErrors() }),
  };

  for (const [kind, run] of Object.entries(exports)) {
    it(`${kind}: refuses a link, leaving it and the file it points to as they were`, async () => {
      answer = join(shared, 'export.csv');
      symlinkSync(victim, answer);
      await refused(run, 'symbolic link');
      expect(readFileSync(victim, 'utf8')).toBe('the admin’s own file\n');
      expect(statSync(victim).mode & 0o777).toBe(0o644);
      expect(lstatSync(answer).isSymbolicLink()).toBe(true);
    });

    it(`${kind}: refuses a second name of another file`, async () => {
      answer = join(shared, 'export.csv');
      linkSync(victim, answer);
      await refused(run, '2 names');
      expect(readFileSync(victim, 'utf8')).toBe('the admin’s own file\n');
    });

    it(`${kind}: refuses a FIFO at once instead of waiting for a reader`, async () => {
      answer = join(shared, 'export.csv');
      execFileSync('mkfifo', [answer]);
      await refused(run, 'not a regular file');
    });

    it.runIf(process.getuid?.() === 0)(`${kind}: refuses a file of another user's, leaving it as it was`, async () => {
      answer = join(shared, 'export.csv');
      writeFileSync(answer, 'theirs\n', { mode: 0o644 });
      chownSync(answer, SOMEONE_ELSE, SOMEONE_ELSE);
      await refused(run, 'another user');
      expect(readFileSync(answer, 'utf8')).toBe('theirs\n');
      expect(statSync(answer).uid).toBe(SOMEONE_ELSE);
      expect(statSync(answer).mode & 0o777).toBe(0o644);
    });

    it(`${kind}: replaces a plain file of the admin's, private and emptied first`, async () => {
      answer = join(shared, 'export.csv');
      writeFileSync(answer, 'x'.repeat(100_000), { mode: 0o644 });
      await expect(run()).resolves.toMatchObject({ outcome: 'saved', fileName: 'export.csv' });
      expect(statSync(answer).mode & 0o777).toBe(0o600);
      expect(readFileSync(answer, 'utf8')).not.toContain('xxx');
    });
  }
});
