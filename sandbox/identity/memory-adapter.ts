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
 * oidc-provider's storage, one instance per sandbox start (its built-in memory adapter is process-global and warns
 * on use). Small data, so lookups by uid / user code / grant scan the map; expired records are purged as we go.
 */
export class MemoryStore {
  private readonly entries = new Map<string, Entry>();
  private readonly file: string | undefined;

  /** With `file`, the records are read from it at start and written back after every change (identity-state.ts). */
  constructor(file?: string) {
    this.file = file;
    if (file === undefined) return;
    try {
      const saved = JSON.parse(readFileSync(file, 'utf8')) as Array<[string, Entry]>;
      const now = Date.now();
      for (const [key, entry] of saved) {
        if (entry.keepUntil === undefined || entry.keepUntil > now) this.entries.set(key, entry);
      }
    } catch {
      // Nothing saved yet, or unreadable: start empty (sign-ins made before end, as after any restart without it).
    }
  }

  adapterFor(model: string): Adapter {
    const key = (id: string) => `${model}:${id}`;
    return {
      upsert: (id, payload, expiresIn) => {
        const keepUntil = typeof expiresIn === 'number' ? Date.now() + expiresIn * 1000 + GRACE_MS : undefined;
        this.entries.set(key(id), { model, payload, keepUntil });
        this.save();
        return Promise.resolve();
      },
      find: (id) => Promise.resolve(this.live(key(id))?.payload),
      findByUid: (uid) => Promise.resolve(this.findWhere(model, (p) => p.uid === uid)),
      findByUserCode: (userCode) => Promise.resolve(this.findWhere(model, (p) => p.userCode === userCode)),
      consume: (id) => {
        const entry = this.live(key(id));
        if (entry) entry.payload.consumed = Math.floor(Date.now() / 1000);
        this.save();
        return Promise.resolve();
      },
      destroy: (id) => {
        this.entries.delete(key(id));
        this.save();
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
      this.entries.delete(key);
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

  private save(): void {
    if (this.file !== undefined) writePrivate(this.file, JSON.stringify([...this.entries]));
  }

  private deleteWhere(match: (entry: Entry) => boolean): number {
    let count = 0;
    for (const [key, entry] of [...this.entries]) {
      if (match(entry)) {
        this.entries.delete(key);
        count += 1;
      }
    }
    if (count > 0) this.save();
    return count;
  }
}
