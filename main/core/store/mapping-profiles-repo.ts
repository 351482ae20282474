import type Database from 'better-sqlite3';
import { mappingProfileSchema, type MappingProfile } from '../model/mapping-profile.js';
import { ParsedRows } from './parsed-rows.js';
import { isoTime } from './time.js';

/**
 * Saved mapping profiles (how one clinic system's layout maps onto our fields), by name. The header cells of the
 * file a profile was made from are kept too, so the same layout is recognised again in other forms (the error
 * export adds an `errors` column). An HL7 profile's sender (`hl7Sender`) lives in the profile JSON itself: the
 * importer matches it over the listed profiles, as it does header fingerprints, so it needs no column of its own.
 */

export interface SavedProfile {
  profile: MappingProfile;
  /** The header cells of the file the profile was saved from, when known. */
  headerCells: string[] | null;
  createdAt: string;
  updatedAt: string;
}

interface ProfileRow {
  name: string;
  profile: string;
  headerCells: string | null;
  createdAt: string;
  updatedAt: string;
}

function toSaved(row: ProfileRow): SavedProfile {
  return {
    // Parsed on the way out as well: a profile is code the importer runs.
    profile: mappingProfileSchema.parse(JSON.parse(row.profile)),
    headerCells: row.headerCells === null ? null : (JSON.parse(row.headerCells) as string[]),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

const COLUMNS = 'name, profile, header_cells AS headerCells, created_at AS createdAt, updated_at AS updatedAt';

export class MappingProfilesRepo {
  readonly #now: () => Date;
  readonly #upsert: Database.Statement;
  readonly #get: Database.Statement<[string], ProfileRow>;
  readonly #list: Database.Statement<[], ProfileRow>;
  readonly #delete: Database.Statement<[string]>;
  /** The intake reads every profile for each message it receives: parsed once while a row stays the same. */
  readonly #parsed = new ParsedRows(toSaved);

  constructor(db: Database.Database, now: () => Date) {
    this.#now = now;
    this.#upsert = db.prepare(`
      INSERT INTO mapping_profiles (name, header_fingerprint, header_cells, profile, created_at, updated_at)
      VALUES (@name, @fingerprint, @headerCells, @profile, @now, @now)
      ON CONFLICT (name) DO UPDATE SET header_fingerprint = excluded.header_fingerprint,
        header_cells = coalesce(excluded.header_cells, header_cells), profile = excluded.profile,
        updated_at = excluded.updated_at`);
    this.#get = db.prepare(`SELECT ${COLUMNS} FROM mapping_profiles WHERE name = ?`);
    this.#list = db.prepare(`SELECT ${COLUMNS} FROM mapping_profiles ORDER BY name`);
    this.#delete = db.prepare('DELETE FROM mapping_profiles WHERE name = ?');
  }

  /** Saves (or replaces) a profile by its name; header cells already stored are kept when none are given. */
  save(profile: MappingProfile, headerCells: readonly string[] | null = null): SavedProfile {
    const checked = mappingProfileSchema.parse(profile);
    this.#upsert.run({
      name: checked.name,
      fingerprint: checked.headerFingerprint ?? null,
      headerCells: headerCells ? JSON.stringify(headerCells) : null,
      profile: JSON.stringify(checked),
      now: isoTime(this.#now()),
    });
    return this.get(checked.name)!;
  }

  get(name: string): SavedProfile | undefined {
    const row = this.#get.get(name);
    return row && this.#parsed.get(row.name, row);
  }

  list(): SavedProfile[] {
    return this.#list.all().map((row) => this.#parsed.get(row.name, row));
  }

  delete(name: string): boolean {
    return this.#delete.run(name).changes === 1;
  }
}
