import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync } from 'node:fs';
import { readdir, rename, stat, writeFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import type { ImportOutcome } from '../../../shared/staging-views.js';
import type { Logger } from '../platform/logger.js';
import type { StagingService } from '../staging/staging-service.js';
import type { IntakeRepo } from '../store/intake-repo.js';
import type { Store } from '../store/store.js';
import type { IntakeRules } from './intake-service.js';
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
  logger?: Logger;
  onFile?(result: WatchedFileResult): void;
}

export interface WatchedFileResult {
  name: string;
  outcome: 'done' | 'failed' | 'duplicate';
  batchId: number | null;
  movedTo: string;
}

const WRITING = /(^\.|\.tmp$|\.part$|\.partial$|\.filepart$|\.crdownload$|~$)/i;
const OUR_NOTES = /\.(problems\.txt|errors\.csv|duplicate\.txt)$/i;

interface Seen {
  size: number;
  mtimeMs: number;
  stablePolls: number;
}

export class FolderWatcher {
  readonly #options: FolderWatcherOptions;
  readonly #seen = new Map<string, Seen>();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;
  readonly done: string;
  readonly failed: string;

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
    mkdirSync(this.done, { recursive: true });
    mkdirSync(this.failed, { recursive: true });
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
      this.#running = this.#poll(true)
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
      if (!entry.isFile() || WRITING.test(entry.name) || OUR_NOTES.test(entry.name)) continue;
      present.add(entry.name);
      const info = await stat(join(dir, entry.name)).catch(() => undefined);
      if (!info) continue;
      const before = this.#seen.get(entry.name);
      if (!before || before.size !== info.size || before.mtimeMs !== info.mtimeMs) {
        this.#seen.set(entry.name, { size: info.size, mtimeMs: info.mtimeMs, stablePolls: 0 });
        continue;
      }
      before.stablePolls += 1;
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

  async #handle(name: string): Promise<void> {
    const { dir, environmentId, staging, repo, store, logger } = this.#options;
    const path = join(dir, name);
    const hash = await sha256Of(path);
    const earlier = repo.fileSeen(environmentId, hash);
    if (earlier) {
      const movedTo = await moveBeside(path, this.done);
      await writeFile(
        `${movedTo}.duplicate.txt`,
        `This file has the same content as one imported before${earlier.batchId !== null ? ` (batch ${earlier.batchId})` : ''}; it was not imported again.\n`,
      );
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
    let outcome: ImportOutcome;
    try {
      outcome = await staging.importFile({ environmentId, path });
    } catch (error) {
      // Unreadable (permissions, a file removed under us): set aside with the reason, never retried in a loop.
      const reason = error instanceof Error ? error.message : String(error);
      const movedTo = await moveBeside(path, this.failed).catch(() => path);
      if (movedTo !== path) await writeFile(`${movedTo}.problems.txt`, `${reason}\n`);
      logger?.warn('intake: a watched file could not be imported', { file: name });
      this.#options.onFile?.({ name, outcome: 'failed', batchId: null, movedTo });
      return;
    }
    if (outcome.status === 'cancelled') return;
    const batchId = outcome.status === 'staged' ? outcome.batchId : null;
    const allValid = outcome.status === 'staged' && outcome.invalid === 0;
    const rule = outcome.status === 'staged' ? watchedFileRule(this.#options.rules, outcome.summary) : undefined;
    const ruleSenders = rule ? describeFileSenders(rule) : undefined;
    if (outcome.status === 'staged' && rule?.mode === 'send' && outcome.valid > 0) {
      await staging.acceptAll(outcome.batchId);
    }
    repo.recordFile({
      hash,
      environmentId,
      folder: dir,
      fileName: name,
      outcome: allValid ? 'imported' : 'failed',
      batchId,
    });
    const movedTo = await moveBeside(path, allValid ? this.done : this.failed);
    if (outcome.status === 'refused') {
      const lines = outcome.problems.map((p) => `${p.row !== undefined ? `row ${p.row}: ` : ''}${p.text}`);
      await writeFile(`${movedTo}.problems.txt`, `${lines.join('\n')}\n`);
    } else if (!allValid) {
      await writeChunks(`${movedTo}.errors.csv`, staging.errorCsv(outcome.batchId));
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
    this.#options.onFile?.({ name, outcome: allValid ? 'done' : 'failed', batchId, movedTo });
  }
}

/** Moves a file into `toDir` under its name, or `name (2).ext`… when taken; never over another file. */
async function moveBeside(path: string, toDir: string): Promise<string> {
  const name = basename(path);
  const ext = extname(name);
  const stem = name.slice(0, name.length - ext.length);
  for (let n = 1; ; n += 1) {
    const target = join(toDir, n === 1 ? name : `${stem} (${n})${ext}`);
    const taken = await stat(target).then(
      () => true,
      () => false,
    );
    if (taken) continue;
    await rename(path, target);
    return target;
  }
}

/** Streamed: a 100 MB file is never in memory. */
async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function writeChunks(path: string, chunks: Iterable<string>): Promise<void> {
  const out = createWriteStream(path, { mode: 0o600 });
  await new Promise<void>((resolve, reject) => {
    out.on('error', reject);
    for (const chunk of chunks) out.write(chunk);
    out.end(() => resolve());
  });
}
