import { createHash } from 'node:crypto';
import { constants, lstatSync, mkdirSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { lstat, open, readdir, rename } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import type { ImportOutcome } from '../../../shared/staging-views.js';
import { openImportSource, type ImportSource } from '../importing/import-source.js';
import type { Problem } from '../model/imported-order.js';
import type { Logger } from '../platform/logger.js';
import type { CancelCheck } from '../staging/accept-batch.js';
import { layoutProfileHint } from '../staging/layout-profile-hint.js';
import type { StagingService } from '../staging/staging-service.js';
import type { IntakeRepo } from '../store/intake-repo.js';
import type { Store } from '../store/store.js';
import { cancelNotActedOn, otherSendersOrder, senderOfMessage, sentBy } from './cancel-origin.js';
import type { IntakeRules } from './intake-service.js';
import { fittedName } from './note-names.js';
import { describeFileSenders, watchedFileRule } from './watched-file-rule.js';

/**
 * A watched folder: a file written into it is imported once it is complete, with the profile its header (CSV) or
 * sender (HL7) selects, exactly as `rx-batch import` would, then moved beside it: to `done/` when every order in it
 * is valid, to `failed/` when the file was refused or some orders need fixing, with `NAME.problems.txt` (a refused
 * file: one line per reason) or `NAME.errors.csv` (the batch's error CSV) next to it. The batch stays in the
 * preview either way; when the file's rule is `send` its valid orders are accepted into the outbox at once. An HL7
 * file follows its senders' rules, the strictest when there are several (`hold` wins; watched-file-rule.ts); a
 * CSV or JSON file names no sender and follows the default rule.
 *
 * - Complete: its size and modification time the same over two polls (a writer still appending changes them), or
 *   renamed into place (names a writer uses while writing are skipped: dot files, `.tmp`, `.part`, `.partial`,
 *   `.filepart`, `.crdownload`, `~` suffixes).
 * - The same content twice (SHA-256 of the bytes, per environment) is imported once: a copy is moved to `done/`
 *   with `NAME.duplicate.txt` saying which batch it already made.
 * - Files there at start are picked up. Nothing the folder holds is deleted: files are only moved, and a name
 *   already taken in `done/` or `failed/` gets a suffix.
 * - Polling (fs.watch misses events on network shares and some platforms), every `intervalMs` (default 250 ms).
 * - Others may write here, so nothing is followed out of the folder: a file is opened once without following a
 *   link (import-source.ts), hashed and imported from that handle; a symbolic link, FIFO, socket or device put
 *   here is moved (itself, unread) to `failed/` with the reason; `done/` and `failed/` must be folders of their
 *   own, not links (checked before each move); notes are created new, never written through a name already there.
 */

export interface FolderWatcherOptions {
  dir: string;
  environmentId: string;
  store: Store;
  staging: StagingService;
  repo: IntakeRepo;
  /** The run's rules (as the IntakeService has them): the default, and senders with a rule of their own. */
  rules: IntakeRules;
  intervalMs?: number;
  /** How long a file may stay empty before it is reported (`waiting`) while it is left in place; default 60 s. */
  emptyNoticeMs?: number;
  logger?: Logger;
  onFile?(result: WatchedFileResult): void;
}

/** A file handled (moved to done/ or failed/), or `waiting`: empty for a while, left where it is, said once. */
export interface WatchedFileResult {
  name: string;
  outcome: 'done' | 'failed' | 'duplicate' | 'waiting';
  batchId: number | null;
  movedTo: string;
  /** A refused file: its problems' codes (never their texts, which may quote the file), and its note's path. */
  refused?: { codes: string[]; note: string };
}

const WRITING = /(^\.|\.tmp$|\.part$|\.partial$|\.filepart$|\.crdownload$|~$)/i;
const OUR_NOTES = /\.(problems\.txt|errors\.csv|duplicate\.txt)$/i;
const NOTE_SUFFIXES = ['.problems.txt', '.errors.csv', '.duplicate.txt'];
/** A note is a new file: never an existing name (a link planted there is not followed), never a FIFO's reader. */
const NOTE_FLAGS =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
const NOTE_BYTES = 64 * 1024;

/** Entries that are neither a regular file nor a folder: set aside unread. */
function isSpecial(entry: Dirent): boolean {
  return (
    entry.isSymbolicLink() || entry.isFIFO() || entry.isSocket() || entry.isBlockDevice() || entry.isCharacterDevice()
  );
}

interface Folder {
  path: string;
  dev: number;
  ino: number;
}

interface Seen {
  size: number;
  mtimeMs: number;
  stablePolls: number;
  /** When it was first seen empty as it is (undefined: not empty), and whether that was said. */
  emptySince?: number;
  emptySaid?: boolean;
}

const EMPTY_NOTICE_MS = 60_000;

export class FolderWatcher {
  readonly #options: FolderWatcherOptions;
  readonly #seen = new Map<string, Seen>();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;
  readonly done: string;
  readonly failed: string;
  /** The watched folder with its links resolved (the admin's own), and done/ and failed/ as first made. */
  #real: string | undefined;
  readonly #targets = new Map<string, Folder>();

  constructor(options: FolderWatcherOptions) {
    this.#options = options;
    this.done = join(options.dir, 'done');
    this.failed = join(options.dir, 'failed');
  }

  start(): void {
    this.#prepare();
    this.#schedule(0);
  }

  #prepare(): void {
    this.#real ??= realpathSync(this.#options.dir);
    // As private as the folder itself (the umask still applies): they keep its files, patient data, for good. Always
    // this account's to write: the folder may be its group's more than its own (a clinic system's, shared).
    // The sticky bit kept: in a folder everyone may write to, others may not move or delete what is not theirs.
    const mode = (statSync(this.#real).mode & 0o1777) | 0o700;
    const uid = process.getuid?.();
    for (const target of [this.done, this.failed]) {
      const made = mkdirSync(target, { recursive: true, mode }) !== undefined;
      const info = lstatSync(target);
      const known = this.#targets.get(target);
      if (!info.isDirectory() || (known && (known.dev !== info.dev || known.ino !== info.ino))) {
        throw new Error(`${target} is not the folder the watcher made (a link or something else is in its place)`);
      }
      // Made before the watcher by another account (it may write to the watched folder): what is moved there
      // would be that account's to list, read and delete. Checked when first found, not when made here (a network
      // share may show its own owner for what this account makes).
      if (!known && !made && uid !== undefined && info.uid !== uid) {
        throw new Error(
          `${target} belongs to another account (uid ${info.uid}), which could read and remove the files moved there: remove it, or make it this account's, and start again`,
        );
      }
      this.#targets.set(target, { path: target, dev: info.dev, ino: info.ino });
    }
  }

  /** done/ or failed/ as first made, right before something is moved or written into it. */
  async #target(path: string): Promise<string> {
    const known = this.#targets.get(path)!;
    const info = await lstat(path).catch(() => undefined);
    if (!info?.isDirectory() || info.dev !== known.dev || info.ino !== known.ino) {
      throw new Error(`${path} is not the folder the watcher made (a link or something else is in its place)`);
    }
    return path;
  }

  /** Stops polling; a file being imported is finished (and moved) first. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#running;
  }

  /** One poll now (tests); resolves when the files it found complete are handled. */
  async pollOnce(): Promise<void> {
    await this.#running;
    this.#prepare();
    this.#running = this.#poll(false);
    await this.#running;
  }

  #schedule(delay: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#running = Promise.resolve()
        .then(() => this.#prepare())
        .then(() => this.#poll(true))
        .catch((error: unknown) => {
          this.#options.logger?.warn('intake: a watched folder could not be read', {
            folder: this.#options.dir,
            error: error instanceof Error ? error.message : String(error),
          });
        })
        .finally(() => this.#schedule(this.#options.intervalMs ?? 250));
    }, delay);
  }

  async #poll(scheduled: boolean): Promise<void> {
    const { dir } = this.#options;
    const entries = await readdir(dir, { withFileTypes: true });
    const present = new Set<string>();
    for (const entry of entries) {
      if (WRITING.test(entry.name) || OUR_NOTES.test(entry.name)) continue;
      if (isSpecial(entry) && join(dir, entry.name) !== this.done && join(dir, entry.name) !== this.failed) {
        // Nothing is being written into a link or a FIFO: set aside at once.
        if (scheduled && this.#stopped) return;
        await this.#handle(entry.name);
        continue;
      }
      if (!entry.isFile()) continue;
      present.add(entry.name);
      const info = await lstat(join(dir, entry.name)).catch(() => undefined);
      if (!info) continue;
      const before = this.#seen.get(entry.name);
      if (!before || before.size !== info.size || before.mtimeMs !== info.mtimeMs) {
        this.#seen.set(entry.name, {
          size: info.size,
          mtimeMs: info.mtimeMs,
          stablePolls: 0,
          ...(info.size === 0 ? { emptySince: Date.now() } : {}),
        });
        continue;
      }
      before.stablePolls += 1;
      // Empty: a writer may not have filled it yet, so it stays; said once it has stayed so a while, so the admin
      // sees why nothing came of it.
      if (info.size === 0) this.#noticeEmpty(entry.name, before);
      // Unchanged since the last poll: complete (a writer that pauses longer than a poll keeps appending to a name
      // it should rename into place; see the README).
      if (before.stablePolls >= 1 && info.size > 0) {
        if (scheduled && this.#stopped) return;
        this.#seen.delete(entry.name);
        await this.#handle(entry.name);
      }
    }
    for (const name of this.#seen.keys()) if (!present.has(name)) this.#seen.delete(name);
  }

  #noticeEmpty(name: string, seen: Seen): void {
    if (seen.emptySaid || Date.now() - (seen.emptySince ?? 0) < (this.#options.emptyNoticeMs ?? EMPTY_NOTICE_MS)) {
      return;
    }
    seen.emptySaid = true;
    this.#options.logger?.warn('intake: a watched file is empty; it is left in place until it is written', {
      file: name,
    });
    this.#options.onFile?.({ name, outcome: 'waiting', batchId: null, movedTo: join(this.#options.dir, name) });
  }

  async #handle(name: string): Promise<void> {
    const { dir, environmentId, staging, repo, store, logger } = this.#options;
    const path = join(dir, name);
    let opened;
    try {
      opened = await openImportSource(join(this.#real!, name), name);
    } catch (error) {
      // Unreadable (permissions, a file removed under us): set aside with the reason, never retried in a loop.
      await this.#setAside(name, path, error instanceof Error ? error.message : String(error));
      return;
    }
    if (!opened.ok) {
      await this.#refusedUnread(name, path, opened.problem);
      return;
    }
    const file = { dev: opened.source.dev, ino: opened.source.ino };
    let hash: string;
    let outcome: ImportOutcome | undefined;
    let earlier: ReturnType<IntakeRepo['fileSeen']>;
    let changed: boolean;
    try {
      hash = await sha256Of(opened.source);
      earlier = repo.fileSeen(environmentId, hash);
      changed = await opened.source.changedSinceOpen();
      if (!earlier && !changed) outcome = await staging.importFile({ environmentId, source: opened.source });
      changed ||= await opened.source.changedSinceOpen();
    } catch (error) {
      await opened.source.close();
      await this.#setAside(name, path, error instanceof Error ? error.message : String(error));
      return;
    }
    await opened.source.close();
    if (changed) {
      this.#stillBeingWritten(name, outcome);
      return;
    }
    if (earlier) {
      const movedTo = await this.#moveHandled(path, this.done, file);
      if (movedTo !== path) {
        await this.#note(notePath(movedTo, '.duplicate.txt'), [
          `This file has the same content as one imported before${earlier.batchId !== null ? ` (batch ${earlier.batchId})` : ''}; it was not imported again.\n`,
        ]);
      }
      store.audit.append({
        actor: 'system',
        action: 'intake.file.duplicate',
        environmentId,
        batchId: earlier.batchId,
        details: { fileName: name, outcome: 'duplicate' },
      });
      logger?.info('intake: a file with content imported before was set aside', { file: name });
      this.#options.onFile?.({ name, outcome: 'duplicate', batchId: earlier.batchId, movedTo });
      return;
    }
    if (!outcome || outcome.status === 'cancelled') return;
    const batchId = outcome.status === 'staged' ? outcome.batchId : null;
    const rule = outcome.status === 'staged' ? watchedFileRule(this.#options.rules, outcome.summary) : undefined;
    const ruleSenders = rule ? describeFileSenders(rule) : undefined;
    // Cancels of orders their message's sender did not send: left staged for review, the file set aside.
    const held: string[] = [];
    if (outcome.status === 'staged' && rule?.mode === 'send' && outcome.valid > 0) {
      await staging.acceptAll(outcome.batchId, undefined, this.#cancelCheck(outcome.batchId, name, held));
    }
    const allValid = outcome.status === 'staged' && outcome.invalid === 0 && held.length === 0;
    repo.recordFile({
      hash,
      environmentId,
      folder: dir,
      fileName: name,
      outcome: allValid ? 'imported' : 'failed',
      batchId,
    });
    const movedTo = await this.#moveHandled(path, allValid ? this.done : this.failed, file);
    const problemsNote = notePath(movedTo, '.problems.txt');
    if (movedTo === path) {
      // Removed meanwhile: no note beside a file that is not there; the preview has the batch.
    } else if (outcome.status === 'refused') {
      const lines = outcome.problems.map((p) => `${p.row !== undefined ? `row ${p.row}: ` : ''}${p.text}`);
      const hint = layoutProfileHint(outcome.problems);
      await this.#note(problemsNote, [`${[...lines, ...(hint ? [hint] : [])].join('\n')}\n`]);
    } else if (!allValid) {
      // The errors CSV holds what a fix can mend; a message that is no order at all is named in the problems file,
      // and so is what the file as a whole says (an encoding told from its bytes, padding cut off), as the preview
      // shows it above the grid.
      if (outcome.invalid > outcome.notOrders) {
        await this.#note(notePath(movedTo, '.errors.csv'), staging.errorCsv(outcome.batchId));
      }
      const notes = [
        ...outcome.summary.fileProblems.map((problem) => `${problem.text}\n`),
        ...held.map((line) => `${line}\n`),
        ...(outcome.notOrders > 0 ? staging.notOrderLines(outcome.batchId) : []),
      ];
      if (notes.length > 0) await this.#note(problemsNote, notes);
    }
    store.audit.append({
      actor: 'system',
      action: allValid ? 'intake.file.imported' : 'intake.file.failed',
      environmentId,
      batchId,
      details: {
        fileName: name,
        outcome: outcome.status,
        ...(outcome.status === 'staged' ? { orderCount: outcome.orders, invalidCount: outcome.invalid } : {}),
        // The rule the file's orders followed, and whose it is (no sender: the default's).
        ...(rule ? { operation: rule.mode } : {}),
        ...(ruleSenders !== undefined ? { sender: ruleSenders } : {}),
      },
    });
    logger?.info('intake: a watched file was imported', {
      file: name,
      outcome: allValid ? 'done' : 'failed',
      ...(batchId !== null ? { batch: batchId } : {}),
      ...(rule ? { rule: rule.mode, ruleOf: ruleSenders ?? 'the default' } : {}),
    });
    this.#options.onFile?.({
      name,
      outcome: allValid ? 'done' : 'failed',
      batchId,
      movedTo,
      ...(outcome.status === 'refused'
        ? { refused: { codes: outcome.problems.map((p) => p.code), note: problemsNote } }
        : {}),
    });
  }
  /**
   * Written to after it looked complete (a writer that paused longer than a poll, or rewrote it in place): what was
   * read is not the file, so its batch is discarded before anything of it is accepted, nothing is recorded as seen,
   * and the file stays where it is, to be read again once it has stopped changing.
   */
  #stillBeingWritten(name: string, outcome: ImportOutcome | undefined): void {
    const { environmentId, staging, store, logger } = this.#options;
    const batchId = outcome?.status === 'staged' ? outcome.batchId : null;
    if (batchId !== null) staging.discard(batchId);
    store.audit.append({
      actor: 'system',
      action: 'intake.file.changed',
      environmentId,
      batchId,
      details: { fileName: name, outcome: 'waiting' },
    });
    logger?.warn('intake: a watched file changed while it was read; it is read again once it stops changing', {
      file: name,
      ...(batchId !== null ? { batch: batchId, discarded: true } : {}),
    });
    this.#options.onFile?.({ name, outcome: 'waiting', batchId, movedTo: join(this.#options.dir, name) });
  }

  /**
   * The accept's check of the file's cancels: each acts only on an order its own message's sender sent over the
   * intake (a message naming no sender, and a CSV or JSON file, sent none); any other stays staged, audited.
   */
  #cancelCheck(batchId: number, fileName: string, held: string[]): CancelCheck {
    const { environmentId, store, repo } = this.#options;
    return (cancel, order) => {
      const sender = senderOfMessage(cancel.source.hl7);
      if (sentBy(store, repo, environmentId, sender, order, { batchId, kind: 'file' })) return undefined;
      const { problem } = otherSendersOrder(store, { sender, order, location: cancel.source });
      store.audit.append({
        actor: 'system',
        action: 'intake.cancel.held',
        environmentId,
        batchId,
        orderId: order.id,
        details: { fileName, ...(sender ? { sender } : {}), outcome: 'held' },
      });
      // The note is read on the folder's side: the sender's sentence, naming no other batch or file (finding 24).
      const said = cancelNotActedOn(sender, order).text;
      held.push(`${cancel.source.message !== undefined ? `message ${cancel.source.message}: ` : ''}${said}`);
      return problem;
    };
  }

  /** A file that could not be read: moved to failed/ with the reason, never retried in a loop. */
  async #setAside(name: string, path: string, reason: string): Promise<void> {
    const movedTo = await this.#moveBeside(path, this.failed).catch(() => path);
    if (movedTo !== path) await this.#note(notePath(movedTo, '.problems.txt'), [`${reason}\n`]);
    this.#options.logger?.warn('intake: a watched file could not be imported', { file: name });
    this.#options.onFile?.({ name, outcome: 'failed', batchId: null, movedTo });
  }

  /**
   * A link, FIFO, socket or device (or a file swapped while it was opened): nothing of it was read. Moved itself
   * (a link, not what it points to) to failed/ with the reason, and audited like a refused file.
   */
  async #refusedUnread(name: string, path: string, problem: Problem): Promise<void> {
    const { environmentId, store, logger } = this.#options;
    const movedTo = await this.#moveHandled(path, this.failed);
    const note = notePath(movedTo, '.problems.txt');
    if (movedTo !== path) await this.#note(note, [`${problem.text}\n`]);
    store.audit.append({
      actor: 'system',
      action: 'intake.file.failed',
      environmentId,
      batchId: null,
      details: { fileName: name, outcome: 'refused' },
    });
    logger?.warn('intake: a watched entry that is not a regular file was set aside unread', {
      file: name,
      reason: problem.code,
    });
    this.#options.onFile?.({
      name,
      outcome: 'failed',
      batchId: null,
      movedTo,
      refused: { codes: [problem.code], note },
    });
  }

  /**
   * `#moveBeside` for a file already handled, whose audit entry and outcome come after the move: anyone who can write
   * in the folder can remove the file while it is read, and the move's ENOENT threw past them, so its orders were
   * staged (under `send`, sent) with no `intake.file.*` entry (docs/security.md, finding 60). A file gone is logged
   * and its path returned unchanged; any other failure still throws (a file still there would be handled, and
   * audited, again at every poll).
   */
  async #moveHandled(path: string, toDir: string, file?: { dev: bigint; ino: bigint }): Promise<string> {
    if (file) {
      // Replaced since it was opened (a writer that saves by writing a new file and renaming it over the old one):
      // the file there now was never read, and moving it would take its orders away unimported. Left in place, it is
      // handled as a new file at a later poll (its content hash tells whether it is new).
      const now = await lstat(path, { bigint: true }).catch(() => undefined);
      if (now && (now.dev !== file.dev || now.ino !== file.ino)) {
        this.#options.logger?.warn(
          'intake: a handled file was replaced before it could be moved: left for the next poll',
          {
            file: basename(path),
          },
        );
        return path;
      }
    }
    try {
      return await this.#moveBeside(path, toDir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || (await lstat(path).catch(() => undefined))) throw error;
      this.#options.logger?.warn('intake: a handled file was removed before it could be moved', {
        file: basename(path),
      });
      return path;
    }
  }

  /**
   * A note that cannot be written (a full disk, a name taken since the move) is logged, never thrown: the file's
   * audit entry and its outcome come after it and must not be skipped.
   */
  async #note(path: string, chunks: Iterable<string>): Promise<void> {
    try {
      await writeNote(path, chunks);
    } catch (error) {
      this.#options.logger?.warn('intake: a note beside a watched file could not be written', {
        file: basename(path),
        reason: (error as NodeJS.ErrnoException).code ?? 'error',
      });
    }
  }

  /**
   * Moves an entry (itself: a link is not followed) into `toDir` under its name, or `name (2).ext`… when that name
   * or one of its notes is taken; never over anything. `toDir` must still be the folder the watcher made.
   */
  async #moveBeside(path: string, toDir: string): Promise<string> {
    await this.#target(toDir);
    const name = basename(path);
    const ext = extname(name);
    const stem = name.slice(0, name.length - ext.length);
    for (let n = 1; ; n += 1) {
      // An extension too long to keep whole is cut with the stem (a name such as `a.<250 characters>`).
      const short = Buffer.byteLength(ext) <= 32;
      const target = join(toDir, n === 1 ? name : fittedName(short ? stem : name, ` (${n})${short ? ext : ''}`));
      let taken = false;
      for (const candidate of [target, ...NOTE_SUFFIXES.map((suffix) => notePath(target, suffix))]) {
        if (
          await lstat(candidate).then(
            () => true,
            () => false,
          )
        )
          taken = true;
      }
      if (taken) continue;
      await rename(path, target);
      return target;
    }
  }
}

/** SHA-256 of the file from its one handle, a block at a time: a 100 MB file is never in memory. */
async function sha256Of(source: ImportSource): Promise<string> {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(1024 * 1024);
  for (let position = 0; ;) {
    const read = await source.read(buffer, 0, buffer.length, position);
    if (read === 0) break;
    hash.update(buffer.subarray(0, read));
    position += read;
  }
  return hash.digest('hex');
}

/** The note beside a moved file: `NAME.problems.txt`, shortened with a hash when that name would be too long. */
function notePath(movedTo: string, suffix: string): string {
  return join(dirname(movedTo), fittedName(basename(movedTo), suffix));
}

/** Writes a note as a new 0600 file (NOTE_FLAGS), in writes of up to 64 KiB. */
async function writeNote(path: string, chunks: Iterable<string>): Promise<void> {
  const handle = await open(path, NOTE_FLAGS, 0o600);
  try {
    let pending = '';
    for (const chunk of chunks) {
      pending += chunk;
      if (pending.length >= NOTE_BYTES) {
        await handle.write(pending);
        pending = '';
      }
    }
    if (pending) await handle.write(pending);
  } finally {
    await handle.close();
  }
}
