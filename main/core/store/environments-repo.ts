import type Database from 'better-sqlite3';
import {
  codeListsSchema,
  DEFAULT_SENDING_PACE,
  environmentSchema,
  safeEnvironmentName,
  sendingPaceSchema,
  type Environment,
  type SendingPace,
} from '../../../shared/environment.js';
import { ParsedRows } from './parsed-rows.js';
import { isoTime } from './time.js';

// The pace lives in shared/environment.ts since the settings screen edits it; re-exported for the core.
export { DEFAULT_SENDING_PACE, sendingPaceSchema, type SendingPace } from '../../../shared/environment.js';

/** A stored API profile: the shared environment plus its sending pace. */
export type EnvironmentProfile = Environment & SendingPace;
/** What upsert takes: pace fields left out keep their stored values (or the defaults, for a new profile). */
export type EnvironmentProfileInput = Environment & Partial<SendingPace>;

interface EnvironmentRow {
  id: string;
  name: string;
  kind: string;
  apiBaseUrl: string;
  issuer: string;
  clientId: string;
  grant: string;
  scopes: string;
  createWithClinicVersion: string;
  requestTimeoutMs: number;
  codeLists: string;
  concurrency: number;
  ratePerSecond: number;
  pollIntervalMs: number;
}

const COLUMNS = `id, name, kind, api_base_url AS apiBaseUrl, issuer, client_id AS clientId, grant_type AS "grant", scopes,
  create_with_clinic_version AS createWithClinicVersion, request_timeout_ms AS requestTimeoutMs, code_lists AS codeLists,
  concurrency, rate_per_second AS ratePerSecond, poll_interval_ms AS pollIntervalMs`;

const profileSchema = environmentSchema.extend(sendingPaceSchema.shape);

function toProfile(row: EnvironmentRow): EnvironmentProfile {
  // Parsed on the way out too: a row edited by hand must not reach the client as a malformed profile.
  return profileSchema.parse({
    ...row,
    name: safeEnvironmentName(row.name),
    scopes: JSON.parse(row.scopes) as unknown,
    codeLists: codeListsSchema.parse(JSON.parse(row.codeLists)),
  });
}

export class EnvironmentsRepo {
  readonly #now: () => Date;
  readonly #upsert: Database.Statement;
  readonly #get: Database.Statement<[string], EnvironmentRow>;
  readonly #list: Database.Statement<[], EnvironmentRow>;
  readonly #getPaused: Database.Statement<[string], { pausedReason: string | null }>;
  readonly #remove: Database.Statement<[string, string, string]>;
  readonly #choose: Database.Statement<{ id: string; at: string }>;
  readonly #chosen: Database.Statement<[], { id: string }>;
  readonly #removedIds: Database.Statement<[], { id: string }>;
  readonly #setPaused: Database.Statement<[string | null, string, string]>;
  /** Read on every staged message and accept (code lists): parsed once while the row stays the same. */
  readonly #parsed = new ParsedRows(toProfile);

  constructor(db: Database.Database, now: () => Date) {
    this.#now = now;
    this.#upsert = db.prepare(`
      INSERT INTO environments (id, name, kind, api_base_url, issuer, client_id, grant_type, scopes,
        create_with_clinic_version, request_timeout_ms, code_lists, concurrency, rate_per_second, poll_interval_ms,
        created_at, updated_at)
      VALUES (@id, @name, @kind, @apiBaseUrl, @issuer, @clientId, @grant, @scopes, @createWithClinicVersion,
        @requestTimeoutMs, @codeLists, coalesce(@concurrency, @defaultConcurrency),
        coalesce(@ratePerSecond, @defaultRatePerSecond), coalesce(@pollIntervalMs, @defaultPollIntervalMs), @now, @now)
      ON CONFLICT (id) DO UPDATE SET
        name = excluded.name, kind = excluded.kind, api_base_url = excluded.api_base_url, issuer = excluded.issuer,
        client_id = excluded.client_id, grant_type = excluded.grant_type, scopes = excluded.scopes,
        create_with_clinic_version = excluded.create_with_clinic_version,
        request_timeout_ms = excluded.request_timeout_ms, code_lists = excluded.code_lists,
        concurrency = coalesce(@concurrency, concurrency),
        rate_per_second = coalesce(@ratePerSecond, rate_per_second),
        poll_interval_ms = coalesce(@pollIntervalMs, poll_interval_ms),
        updated_at = excluded.updated_at, removed_at = NULL`);
    // A removed environment's row stays (its orders refer to it) but is not one of the environments any more.
    this.#get = db.prepare(`SELECT ${COLUMNS} FROM environments WHERE id = ? AND removed_at IS NULL`);
    this.#list = db.prepare(`SELECT ${COLUMNS} FROM environments WHERE removed_at IS NULL ORDER BY created_at, rowid`);
    this.#remove = db.prepare(
      'UPDATE environments SET removed_at = ?, updated_at = ?, chosen_at = NULL WHERE id = ? AND removed_at IS NULL',
    );
    // One environment at most carries the choice.
    this.#choose = db.prepare(`
      UPDATE environments SET chosen_at = CASE WHEN id = @id THEN @at ELSE NULL END
      WHERE EXISTS (SELECT 1 FROM environments WHERE id = @id AND removed_at IS NULL)`);
    this.#chosen = db.prepare('SELECT id FROM environments WHERE removed_at IS NULL AND chosen_at IS NOT NULL');
    this.#removedIds = db.prepare('SELECT id FROM environments WHERE removed_at IS NOT NULL ORDER BY rowid');
    this.#getPaused = db.prepare('SELECT paused_reason AS pausedReason FROM environments WHERE id = ?');
    this.#setPaused = db.prepare('UPDATE environments SET paused_reason = ?, updated_at = ? WHERE id = ?');
  }

  /** Validates the profile with the shared schema, stores it, and returns it as stored. */
  upsert(input: EnvironmentProfileInput): EnvironmentProfile {
    const environment = environmentSchema.parse(input);
    const pace = sendingPaceSchema.partial().parse({
      concurrency: input.concurrency,
      ratePerSecond: input.ratePerSecond,
      pollIntervalMs: input.pollIntervalMs,
    });
    this.#upsert.run({
      ...environment,
      scopes: JSON.stringify(environment.scopes),
      codeLists: JSON.stringify(environment.codeLists),
      concurrency: pace.concurrency ?? null,
      ratePerSecond: pace.ratePerSecond ?? null,
      pollIntervalMs: pace.pollIntervalMs ?? null,
      defaultConcurrency: DEFAULT_SENDING_PACE.concurrency,
      defaultRatePerSecond: DEFAULT_SENDING_PACE.ratePerSecond,
      defaultPollIntervalMs: DEFAULT_SENDING_PACE.pollIntervalMs,
      now: isoTime(this.#now()),
    });
    const stored = this.get(environment.id);
    if (!stored) throw new Error(`environment ${environment.id} was not stored`);
    return stored;
  }

  get(id: string): EnvironmentProfile | undefined {
    const row = this.#get.get(id);
    return row && this.#parsed.get(row.id, row);
  }

  list(): EnvironmentProfile[] {
    return this.#list.all().map((row) => this.#parsed.get(row.id, row));
  }

  /**
   * Marks the environment removed (false when there is none to remove): it is no longer listed, found or chosen;
   * its row stays for the orders that refer to it, and `upsert` with its id brings it back.
   */
  remove(id: string): boolean {
    const at = isoTime(this.#now());
    return this.#remove.run(at, at, id).changes === 1;
  }

  /** Ids of removed environments (their rows stay): a preset among them is not seeded again. */
  removedIds(): string[] {
    return this.#removedIds.all().map((row) => row.id);
  }

  /** Remembers the environment the admin chose on screen; false when there is no such environment. */
  choose(id: string): boolean {
    return this.#choose.run({ id, at: isoTime(this.#now()) }).changes > 0;
  }

  /** The environment chosen last, or null when none was chosen or it was removed since. */
  chosenId(): string | null {
    return this.#chosen.get()?.id ?? null;
  }

  /** Why the admin paused the environment's outbox, or null: the pause outlives a restart. */
  pausedReason(id: string): string | null {
    return this.#getPaused.get(id)?.pausedReason ?? null;
  }

  /** Stores the admin's pause (a reason) or its end (null); false if there is no such environment. */
  setPaused(id: string, reason: string | null): boolean {
    return this.#setPaused.run(reason === null ? null : reason.slice(0, 500), isoTime(this.#now()), id).changes === 1;
  }
}
