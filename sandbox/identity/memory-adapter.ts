import { readFileSync } from 'node:fs';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { writePrivate } from './identity-state.js';

interface Entry {
  model: string;
  payload: AdapterPayload;
  /** ms since epoch; undefined = until the store is dropped. */
  keepUntil: number | undefined;
}

/**
 * Records outlive their own expiry by this much, so the provider can still say *why* a code failed
 * (`expired_token`) instead of "not found". Expiry itself is decided by the provider from the payload.
 */
const GRACE_MS = 10 * 60 * 1000;

/**
 * The most records of one model kept at once. Every request for the sign-in page (`GET /device`) makes a Session,
 * and any web page can make the browser send thousands (an image's address is enough): unbounded, and written
 * whole after each, they grew the store and the time of every request without end, in the process that runs the
 * sandbox (the app's core). Past the cap, expired records go first, then the oldest (a flood can end a sign-in
 * under way, never the process).
 */
export const MAX_RECORDS_PER_MODEL = 1000;

/**
 * What a person's browser holds for a moment (the code page's session, a login step): kept in memory only, so a
 * flood of page requests writes nothing; a restart asks the person to start that page again.
 */
const UNSAVED_MODELS: ReadonlySet<string> = new Set(['Session', 'Interaction']);

/**
 * oidc-provider's storage, one instance per sandbox start (its built-in memory adapter is process-global and warns
 * on use). Small data, so lookups by uid / user code / grant scan the map; expired records are purged as we go.
 */
export class MemoryStore {
  private readonly entries = new Map<string, Entry>();
  private readonly counts = new Map<string, number>();
  private readonly file: string | undefined;

  /** With `file`, the records are read from it at start and written back after every change (identity-state.ts). */
  constructor(file?: string) {
    this.file = file;
    if (file === undefined) return;
    try {
      const saved = JSON.parse(readFileSync(file, 'utf8')) as Array<[string, Entry]>;
      const now = Date.now();
      for (const [key, entry] of saved) {
        if (entry.keepUntil === undefined || entry.keepUntil > now) this.put(key, entry);
      }
    } catch {
      // Nothing saved yet, or unreadable: start empty (sign-ins made before end, as after any restart without it).
    }
  }

  /** How many records of `model` are kept now. */
  count(model: string): number {
    return this.counts.get(model) ?? 0;
  }

  adapterFor(model: string): Adapter {
    const key = (id: string) => `${model}:${id}`;
    return {
      upsert: (id, payload, expiresIn) => {
        const keepUntil = typeof expiresIn === 'number' ? Date.now() + expiresIn * 1000 + GRACE_MS : undefined;
        this.put(key(id), { model, payload, keepUntil });
        this.saveFor(model);
        return Promise.resolve();
      },
      find: (id) => Promise.resolve(this.live(key(id))?.payload),
      findByUid: (uid) => Promise.resolve(this.findWhere(model, (p) => p.uid === uid)),
      findByUserCode: (userCode) => Promise.resolve(this.findWhere(model, (p) => p.userCode === userCode)),
      consume: (id) => {
        const entry = this.live(key(id));
        if (entry) entry.payload.consumed = Math.floor(Date.now() / 1000);
        this.saveFor(model);
        return Promise.resolve();
      },
      destroy: (id) => {
        this.remove(key(id));
        this.saveFor(model);
        return Promise.resolve();
      },
      revokeByGrantId: (grantId) => {
        this.deleteWhere((entry) => entry.payload.grantId === grantId);
        return Promise.resolve();
      },
    };
  }

  /** Drops every record of one model (e.g. all refresh tokens); returns how many went. */
  deleteModel(model: string): number {
    return this.deleteWhere((entry) => entry.model === model);
  }

  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.keepUntil !== undefined && entry.keepUntil <= Date.now()) {
      this.remove(key);
      return undefined;
    }
    return entry;
  }

  private findWhere(model: string, match: (payload: AdapterPayload) => boolean): AdapterPayload | undefined {
    for (const key of [...this.entries.keys()]) {
      const entry = this.live(key);
      if (entry?.model === model && match(entry.payload)) return entry.payload;
    }
    return undefined;
  }

  /** Adds or replaces a record; a new one past the model's cap makes room first (expired, then oldest). */
  private put(key: string, entry: Entry): void {
    if (!this.entries.has(key) && this.count(entry.model) >= MAX_RECORDS_PER_MODEL) this.makeRoom(entry.model);
    if (!this.entries.has(key)) this.counts.set(entry.model, this.count(entry.model) + 1);
    this.entries.set(key, entry);
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.counts.set(entry.model, this.count(entry.model) - 1);
  }

  private makeRoom(model: string): void {
    const now = Date.now();
    let oldest: string | undefined;
    for (const [key, entry] of [...this.entries]) {
      if (entry.model !== model) continue;
      if (entry.keepUntil !== undefined && entry.keepUntil <= now) this.remove(key);
      else oldest ??= key;
    }
    // Map order is insertion order: the first of the model is the oldest.
    if (this.count(model) >= MAX_RECORDS_PER_MODEL && oldest !== undefined) this.remove(oldest);
  }

  private saveFor(model: string): void {
    if (!UNSAVED_MODELS.has(model)) this.save();
  }

  private save(): void {
    if (this.file === undefined) return;
    const kept = [...this.entries].filter(([, entry]) => !UNSAVED_MODELS.has(entry.model));
    writePrivate(this.file, JSON.stringify(kept));
  }

  private deleteWhere(match: (entry: Entry) => boolean): number {
    let count = 0;
    for (const [key, entry] of [...this.entries]) {
      if (match(entry)) {
        this.remove(key);
        count += 1;
      }
    }
    if (count > 0) this.save();
    return count;
  }
}
