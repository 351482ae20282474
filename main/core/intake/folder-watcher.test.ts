import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  readFileSync,
  readdirSync,
  renameSync,
  symlinkSync,
  writeFileSync,
  mkdirSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  HL7_PROFILE,
  hl7File,
  stagingFixture,
  templateCsv,
  uniqueOrder,
  withField,
  type StagingFixture,
} from '../staging/testing/staging-fixtures.js';
import { IntakeRepo } from '../store/intake-repo.js';
import { LOCAL } from '../store/testing/store-fixtures.js';
import { FolderWatcher, type FolderWatcherOptions, type WatchedFileResult } from './folder-watcher.js';
import type { IntakeMode, IntakeRules } from './intake-service.js';

// Issue #17, watched folders: partial writes, the same file twice, a bad file moved to failed/ with its reasons,
// files present at start; nothing the folder holds is deleted.

let fixture: StagingFixture | undefined;
afterEach(() => {
  fixture?.close();
  fixture = undefined;
});

function setUp(
  mode: IntakeMode | IntakeRules = 'hold',
  options: Pick<FolderWatcherOptions, 'intervalMs' | 'emptyNoticeMs' | 'onFile'> = {},
) {
  const f = (fixture = stagingFixture());
  const dir = join(f.dataDir, 'inbox');
  mkdirSync(dir);
  const watcher = new FolderWatcher({
    dir,
    environmentId: LOCAL.id,
    store: f.store,
    staging: f.staging,
    repo: new IntakeRepo(f.store.db, f.store.now),
    rules: typeof mode === 'string' ? { mode } : mode,
    ...options,
  });
  return { f, dir, watcher };
}

const batches = (f: StagingFixture) => f.staging.listBatches(LOCAL.id);

describe('watched folders', () => {
  it('imports a file there at start once it is stable, and moves it to done/', async () => {
    const { f, dir, watcher } = setUp();
    writeFileSync(join(dir, 'orders.csv'), templateCsv([uniqueOrder(), uniqueOrder()]));
    await watcher.pollOnce(); // seen (and done/, failed/ made)
    expect(existsSync(join(dir, 'orders.csv'))).toBe(true);
    await watcher.pollOnce(); // unchanged: complete
    expect(readdirSync(join(dir, 'done'))).toEqual(['orders.csv']);
    expect(existsSync(join(dir, 'orders.csv'))).toBe(false);
    expect(batches(f)).toHaveLength(1);
    expect(batches(f)[0]!.counts).toMatchObject({ valid: 2, invalid: 0 });
    expect(f.store.audit.search({ action: 'intake.file.imported' })).toHaveLength(1);
  });

  it('waits for a file still being written, and for one renamed into place', async () => {
    const { f, dir, watcher } = setUp();
    const text = templateCsv([uniqueOrder(), uniqueOrder(), uniqueOrder()]);
    const path = join(dir, 'partial.csv');
    writeFileSync(path, text.slice(0, 200));
    await watcher.pollOnce();
    appendFileSync(path, text.slice(200, 400));
    await watcher.pollOnce(); // grew: not complete
    expect(batches(f)).toHaveLength(0);
    appendFileSync(path, text.slice(400));
    await watcher.pollOnce();
    expect(batches(f)).toHaveLength(0);
    await watcher.pollOnce();
    expect(batches(f)).toHaveLength(1);
    expect(batches(f)[0]!.counts).toMatchObject({ valid: 3, invalid: 0 });

    writeFileSync(join(dir, 'next.csv.part'), templateCsv([uniqueOrder()]));
    await watcher.pollOnce();
    await watcher.pollOnce();
    expect(batches(f)).toHaveLength(1); // a name being written is left alone
    renameSync(join(dir, 'next.csv.part'), join(dir, 'next.csv'));
    await watcher.pollOnce();
    await watcher.pollOnce();
    expect(batches(f)).toHaveLength(2);
  });

  it('imports the same content once, whatever its name, and keeps every file', async () => {
    const { f, dir, watcher } = setUp();
    mkdirSync(join(dir, 'done'));
    const text = templateCsv([uniqueOrder()]);
    writeFileSync(join(dir, 'a.csv'), text);
    await watcher.pollOnce();
    await watcher.pollOnce();
    writeFileSync(join(dir, 'b.csv'), text);
    writeFileSync(join(dir, 'a.csv'), text); // the same name again
    await watcher.pollOnce();
    await watcher.pollOnce();
    expect(batches(f)).toHaveLength(1);
    expect(readdirSync(join(dir, 'done')).sort()).toEqual([
      'a (2).csv',
      'a (2).csv.duplicate.txt',
      'a.csv',
      'b.csv',
      'b.csv.duplicate.txt',
    ]);
    expect(readFileSync(join(dir, 'done', 'b.csv.duplicate.txt'), 'utf8')).toMatch(/batch \d+/);
  });

  it('moves a bad file to failed/ with its error CSV, a refused one with its problems', async () => {
    const { f, dir, watcher } = setUp('send');
    mkdirSync(join(dir, 'done'));
    mkdirSync(join(dir, 'failed'));
    const good = uniqueOrder();
    const bad = withField(uniqueOrder(), 'homeAddress.postCode', 'NOT A POSTCODE');
    writeFileSync(join(dir, 'mixed.csv'), templateCsv([good, bad]));
    writeFileSync(join(dir, 'empty.csv'), '\n\n');
    await watcher.pollOnce();
    await watcher.pollOnce();
    expect(readdirSync(join(dir, 'failed')).sort()).toEqual([
      'empty.csv',
      'empty.csv.problems.txt',
      'mixed.csv',
      'mixed.csv.errors.csv',
    ]);
    expect(readFileSync(join(dir, 'failed', 'mixed.csv.errors.csv'), 'utf8')).toMatch(/errors/);
    expect(readFileSync(join(dir, 'failed', 'mixed.csv.errors.csv'), 'utf8')).toMatch(/postcode|postCode/i);
    expect(readFileSync(join(dir, 'failed', 'empty.csv.problems.txt'), 'utf8').length).toBeGreaterThan(5);
    // "Send valid orders as they arrive": the valid one is queued, the other stays for a person.
    const queued = f.store.db.prepare("SELECT count(*) AS n FROM orders WHERE state = 'queued'").get() as { n: number };
    expect(queued.n).toBe(1);
    expect(f.store.audit.search({ action: 'intake.file.failed' })).toHaveLength(2);
  });

  it('names a message that is no order at all in the problems file, and leaves it out of the errors CSV', async () => {
    const { f, dir, watcher } = setUp('send');
    mkdirSync(join(dir, 'done'));
    mkdirSync(join(dir, 'failed'));
    const adt = 'MSH|^~\\&|EPR|CLINIC|RX|PH|20261204101500||ADT^A01|ADT-1|P|2.5\rPID|1||123||Example^Alex\r';
    const bad = withField(uniqueOrder(), 'homeAddress.postCode', 'NOT A POSTCODE');
    writeFileSync(join(dir, 'adt.hl7'), adt);
    writeFileSync(join(dir, 'mixed.hl7'), `${hl7File([bad])}${adt}`);
    await watcher.pollOnce();
    await watcher.pollOnce();
    // A file of ADT messages alone: an errors CSV of empty rows would mend nothing; its problems file says why.
    expect(readdirSync(join(dir, 'failed')).sort()).toEqual([
      'adt.hl7',
      'adt.hl7.problems.txt',
      'mixed.hl7',
      'mixed.hl7.errors.csv',
      'mixed.hl7.problems.txt',
    ]);
    expect(readFileSync(join(dir, 'failed', 'adt.hl7.problems.txt'), 'utf8')).toMatch(/^message 1: .*'ADT\^A01'/);
    expect(readFileSync(join(dir, 'failed', 'mixed.hl7.problems.txt'), 'utf8')).toMatch(/^message 2: .*'ADT\^A01'/);
    const errors = readFileSync(join(dir, 'failed', 'mixed.hl7.errors.csv'), 'utf8')
      .trim()
      .split('\r\n');
    expect(errors).toHaveLength(2);
    expect(errors[1]).toMatch(/NOT A POSTCODE/);
    expect(batches(f).map((batch) => batch.counts)).toEqual(
      expect.arrayContaining([expect.objectContaining({ invalid: 2, notOrders: 1 })]),
    );
  });

  it("writes what the file as a whole says into a failed file's problems, and where a CSV layout is mapped", async () => {
    const { dir, watcher } = setUp('hold');
    mkdirSync(join(dir, 'done'));
    mkdirSync(join(dir, 'failed'));
    // A copy tool padded the file with zero bytes; one of its orders needs fixing.
    const bad = withField(uniqueOrder(), 'homeAddress.postCode', 'NOT A POSTCODE');
    writeFileSync(join(dir, 'padded.hl7'), `${hl7File([uniqueOrder(), bad])}\r${'\0'.repeat(512)}`);
    // Headers that name none of our fields: no layout matches it.
    writeFileSync(join(dir, 'layout.csv'), 'Surname of patient,Drug wanted\nExample,Paracetamol\n');
    await watcher.pollOnce();
    await watcher.pollOnce();
    const padded = readFileSync(join(dir, 'failed', 'padded.hl7.problems.txt'), 'utf8');
    expect(padded).toMatch(/^The file ends in 512 zero bytes/);
    expect(readdirSync(join(dir, 'failed'))).toContain('padded.hl7.errors.csv');
    const layout = readFileSync(join(dir, 'failed', 'layout.csv.problems.txt'), 'utf8')
      .trim()
      .split('\n');
    expect(layout[0]).toMatch(/No header row found/);
    expect(layout.at(-1)).toMatch(
      /^A mapping profile for a layout is made on the app's Import screen .*rx-batch profile import FILE/,
    );
  });

  it('says once that a file has stayed empty, and leaves it until it is written', async () => {
    const results: WatchedFileResult[] = [];
    const { f, dir, watcher } = setUp('hold', { emptyNoticeMs: 0, onFile: (result) => results.push(result) });
    const path = join(dir, 'later.csv');
    writeFileSync(path, '');
    await watcher.pollOnce(); // seen
    await watcher.pollOnce(); // still empty: said
    await watcher.pollOnce(); // still empty: not said again
    expect(results).toEqual([{ name: 'later.csv', outcome: 'waiting', batchId: null, movedTo: path }]);
    expect(existsSync(path)).toBe(true);
    expect(batches(f)).toHaveLength(0);
    // Written at last: imported as any other file.
    writeFileSync(path, templateCsv([uniqueOrder()]));
    await watcher.pollOnce();
    await watcher.pollOnce();
    expect(results.map((result) => result.outcome)).toEqual(['waiting', 'done']);
    expect(batches(f)).toHaveLength(1);
  });

  it('gives a file named near the 255-byte limit its note, shortened, and always its audit entry', async () => {
    const { f, dir, watcher } = setUp('hold');
    // 254 and 250 bytes: the files fit, their notes do not; `é` is two bytes, so the cut must not split one.
    const refused = `${'é'.repeat(60)}${'r'.repeat(130)}.csv`;
    const invalid = `${'i'.repeat(246)}.csv`;
    expect(Buffer.byteLength(refused)).toBe(254);
    writeFileSync(join(dir, refused), '\n\n');
    writeFileSync(
      join(dir, invalid),
      templateCsv([withField(uniqueOrder(), 'homeAddress.postCode', 'NOT A POSTCODE')]),
    );
    await watcher.pollOnce();
    await watcher.pollOnce();
    const failed = readdirSync(join(dir, 'failed'));
    expect(failed).toContain(refused);
    expect(failed).toContain(invalid);
    const notes = failed.filter((name) => name !== refused && name !== invalid).sort();
    expect(notes).toHaveLength(2);
    const [errorsNote, problemsNote] = notes;
    expect(errorsNote).toMatch(/^i+~[0-9a-f]{8}\.errors\.csv$/);
    expect(problemsNote).toMatch(/^(é)+r+~[0-9a-f]{8}\.problems\.txt$/);
    for (const note of notes) expect(Buffer.byteLength(note)).toBeLessThanOrEqual(255);
    expect(readFileSync(join(dir, 'failed', problemsNote!), 'utf8').length).toBeGreaterThan(5);
    expect(readFileSync(join(dir, 'failed', errorsNote!), 'utf8')).toMatch(/postcode|postCode/i);
    // Before, the note's write failed (ENAMETOOLONG) and the file's audit entry was never written.
    const audited = f.store.audit.search({ action: 'intake.file.failed' });
    expect(audited).toHaveLength(2);

    // The same long name again: moved beside the first as `NAME (2).csv`, cut to fit, with a note of its own.
    writeFileSync(join(dir, refused), '\n\n\n');
    await watcher.pollOnce();
    await watcher.pollOnce();
    const again = readdirSync(join(dir, 'failed')).filter((name) => !failed.includes(name));
    expect(again).toHaveLength(2);
    const second = again.find((name) => name.endsWith(' (2).csv'));
    expect(second).toMatch(/^(é)+r+~[0-9a-f]{8} \(2\)\.csv$/);
    expect(Buffer.byteLength(second!)).toBeLessThanOrEqual(255);
    expect(f.store.audit.search({ action: 'intake.file.failed' })).toHaveLength(3);
  });

  it('polls by itself once started, and stops cleanly', async () => {
    const { f, dir, watcher } = setUp('hold', { intervalMs: 50 });
    writeFileSync(join(dir, 'early.csv'), templateCsv([uniqueOrder()]));
    watcher.start();
    for (let i = 0; i < 100 && batches(f).length === 0; i += 1) await new Promise((r) => setTimeout(r, 50));
    writeFileSync(join(dir, 'later.csv'), templateCsv([uniqueOrder()]));
    for (let i = 0; i < 100 && batches(f).length < 2; i += 1) await new Promise((r) => setTimeout(r, 50));
    await watcher.stop();
    expect(batches(f)).toHaveLength(2);
    expect(readdirSync(join(dir, 'done')).sort()).toEqual(['early.csv', 'later.csv']);
  });
});

// An HL7 file follows the rule of its sender (MSH-3^MSH-4), as a message over MLLP does; with several senders the
// strictest, "hold"; a CSV file names no sender and follows the default.
describe("watched folders: the rule of the file's sender", () => {
  const SEND_FROM = { application: 'EPR-7', facility: 'CLINIC-H' };
  const HOLD_FROM = { application: 'LAB-2', facility: 'CLINIC-H' };

  /** Both senders' profiles give what HL7 cannot carry, so every order is valid and only the rule differs. */
  function withProfiles(f: StagingFixture) {
    for (const sender of [SEND_FROM, HOLD_FROM]) {
      f.store.mappingProfiles.save({
        ...HL7_PROFILE,
        name: sender.application,
        hl7Sender: { ...sender, messageType: 'RDE^O11' },
      });
    }
  }

  const queued = (f: StagingFixture) =>
    (f.store.db.prepare("SELECT count(*) AS n FROM orders WHERE state = 'queued'").get() as { n: number }).n;

  async function dropAndPoll(dir: string, watcher: FolderWatcher, name: string, text: string) {
    writeFileSync(join(dir, name), text);
    await watcher.pollOnce();
    await watcher.pollOnce();
  }

  const fileAudit = (f: StagingFixture, fileName: string) =>
    f.store.audit.search({ action: 'intake.file.' }).find((entry) => entry.details.fileName === fileName);

  it('accepts a file from a sender whose rule is "send" when the default is "hold"', async () => {
    const { f, dir, watcher } = setUp({ mode: 'hold', senders: { 'EPR-7^CLINIC-H': 'send' } });
    withProfiles(f);
    await dropAndPoll(dir, watcher, 'epr.hl7', hl7File([uniqueOrder(), uniqueOrder()], 'NW', SEND_FROM));
    expect(readdirSync(join(dir, 'done'))).toEqual(['epr.hl7']);
    const [batch] = batches(f);
    expect(batch!.counts).toMatchObject({ total: 2, invalid: 0, accepted: 2, staged: 0 });
    expect(queued(f)).toBe(2);
    expect(fileAudit(f, 'epr.hl7')?.details).toMatchObject({ operation: 'send', sender: 'EPR-7^CLINIC-H' });
    // A CSV file in the same folder names no sender: the default rule, "hold".
    await dropAndPoll(dir, watcher, 'orders.csv', templateCsv([uniqueOrder()]));
    expect(queued(f)).toBe(2);
    expect(fileAudit(f, 'orders.csv')?.details).toMatchObject({ operation: 'hold' });
    expect(fileAudit(f, 'orders.csv')?.details.sender).toBeUndefined();
  });

  it('keeps a file from a sender whose rule is "hold" staged when the default is "send"', async () => {
    const { f, dir, watcher } = setUp({ mode: 'send', senders: { 'LAB-2': 'hold' } });
    withProfiles(f);
    // By application alone: every facility of LAB-2 holds.
    await dropAndPoll(dir, watcher, 'lab.hl7', hl7File([uniqueOrder(), uniqueOrder()], 'NW', HOLD_FROM));
    expect(readdirSync(join(dir, 'done'))).toEqual(['lab.hl7']);
    expect(batches(f)[0]!.counts).toMatchObject({ total: 2, valid: 2, staged: 2, accepted: 0 });
    expect(queued(f)).toBe(0);
    expect(fileAudit(f, 'lab.hl7')?.details).toMatchObject({ operation: 'hold', sender: 'LAB-2^CLINIC-H' });
    // Another sender, no rule of its own: the default, "send".
    await dropAndPoll(dir, watcher, 'epr.hl7', hl7File([uniqueOrder()], 'NW', SEND_FROM));
    expect(queued(f)).toBe(1);
  });

  it('holds a file with several senders when one of them holds, and names it', async () => {
    const { f, dir, watcher } = setUp({ mode: 'send', senders: { 'LAB-2^CLINIC-H': 'hold' } });
    withProfiles(f);
    const mixed = hl7File([uniqueOrder()], 'NW', SEND_FROM) + hl7File([uniqueOrder()], 'NW', HOLD_FROM);
    await dropAndPoll(dir, watcher, 'mixed.hl7', mixed.replace('MSG-1', 'MSG-0'));
    expect(batches(f)[0]!.counts).toMatchObject({ total: 2, valid: 2, staged: 2, accepted: 0 });
    expect(queued(f)).toBe(0);
    expect(fileAudit(f, 'mixed.hl7')?.details).toMatchObject({ operation: 'hold', sender: 'LAB-2^CLINIC-H' });
    expect(batches(f)[0]!.summary?.hl7MessageSenders).toEqual({
      senders: ['EPR-7^CLINIC-H', 'LAB-2^CLINIC-H'],
      more: false,
    });
  });
});

// Others may write in a watched folder (docs/security.md, import by path): nothing there is followed out of it.
describe.skipIf(process.platform === 'win32')('a watched folder others can write to', () => {
  /** A readable file of the admin's outside the folder, holding orders the importer would take. */
  function privateFile(f: StagingFixture): { path: string; text: string } {
    const path = join(f.dataDir, 'private.csv');
    const text = templateCsv([uniqueOrder()]);
    writeFileSync(path, text);
    return { path, text };
  }

  it('moves a link to failed/ with the reason, unread, and leaves what it points to alone', async () => {
    const { f, dir, watcher } = setUp('send');
    const secret = privateFile(f);
    symlinkSync(secret.path, join(dir, 'orders.csv'));
    await watcher.pollOnce();
    await watcher.pollOnce();
    expect(readdirSync(join(dir, 'failed')).sort()).toEqual(['orders.csv', 'orders.csv.problems.txt']);
    // The link itself was moved: it still points where it did.
    expect(lstatSync(join(dir, 'failed', 'orders.csv')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, 'failed', 'orders.csv.problems.txt'), 'utf8')).toMatch(/symbolic link/);
    expect(readFileSync(secret.path, 'utf8')).toBe(secret.text);
    expect(batches(f)).toHaveLength(0);
    expect(f.store.audit.search({ action: 'intake.file.failed' })[0]?.details).toMatchObject({
      fileName: 'orders.csv',
      outcome: 'refused',
    });
  });

  it('moves a FIFO to failed/ with the reason, never waiting for a writer', async () => {
    const { f, dir, watcher } = setUp();
    execFileSync('mkfifo', [join(dir, 'orders.hl7')]);
    await watcher.pollOnce();
    expect(readdirSync(join(dir, 'failed')).sort()).toEqual(['orders.hl7', 'orders.hl7.problems.txt']);
    expect(lstatSync(join(dir, 'failed', 'orders.hl7')).isFIFO()).toBe(true);
    expect(readFileSync(join(dir, 'failed', 'orders.hl7.problems.txt'), 'utf8')).toMatch(/named pipe \(FIFO\)/);
    expect(batches(f)).toHaveLength(0);
  });

  it('writes a note as a new file, never through a link planted under its name', async () => {
    const { f, dir, watcher } = setUp();
    const victim = join(f.dataDir, 'victim.txt');
    writeFileSync(victim, 'the admin keeps this\n');
    mkdirSync(join(dir, 'failed'));
    symlinkSync(victim, join(dir, 'failed', 'empty.csv.problems.txt'));
    writeFileSync(join(dir, 'empty.csv'), '\n\n');
    await watcher.pollOnce();
    await watcher.pollOnce();
    expect(readFileSync(victim, 'utf8')).toBe('the admin keeps this\n');
    // The name whose note is taken is passed over, as a taken name is.
    expect(readdirSync(join(dir, 'failed')).sort()).toEqual([
      'empty (2).csv',
      'empty (2).csv.problems.txt',
      'empty.csv.problems.txt',
    ]);
    expect(readFileSync(join(dir, 'failed', 'empty (2).csv.problems.txt'), 'utf8')).toMatch(/blank lines|empty/i);
  });

  it('moves nothing into a done/ that is a link to another folder', async () => {
    const { f, dir, watcher } = setUp();
    const elsewhere = join(f.dataDir, 'elsewhere');
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(dir, 'done'));
    writeFileSync(join(dir, 'orders.csv'), templateCsv([uniqueOrder()]));
    await expect(watcher.pollOnce()).rejects.toThrow(/done is not the folder the watcher made/);
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(existsSync(join(dir, 'orders.csv'))).toBe(true);
  });
});

describe.skipIf(process.getuid?.() !== 0)(
  'a watched folder where another account made done/ first (run as root)',
  () => {
    it('refuses to start, naming the folder, and moves nothing there', async () => {
      const { dir, watcher } = setUp();
      const done = join(dir, 'done');
      mkdirSync(done, { mode: 0o777 });
      chownSync(done, 65534, 65534);
      writeFileSync(join(dir, 'orders.csv'), templateCsv([uniqueOrder()]));
      expect(() => watcher.start()).toThrow(`${done} belongs to another account (uid 65534)`);
      await watcher.stop();
      expect(readdirSync(done)).toEqual([]);
      expect(existsSync(join(dir, 'orders.csv'))).toBe(true);
    });

    it('keeps the sticky bit of a folder everyone may write to on done/ and failed/', async () => {
      const { dir, watcher } = setUp();
      chmodSync(dir, 0o1777);
      await watcher.pollOnce();
      expect(lstatSync(join(dir, 'done')).mode & 0o1000).toBe(0o1000);
      expect(lstatSync(join(dir, 'failed')).mode & 0o1000).toBe(0o1000);
    });
  },
);
