import type { CodeLists } from '../../../shared/environment.js';
import type { ImportedOrder, ImportProgress } from './imported-order.js';
import type { MappingProfile } from './mapping-profile.js';
import type { OrderExtras } from './provenance-table.js';

export interface ImportOptions {
  /** Overrides encoding detection (any name iconv-lite knows, e.g. `windows-1252`, `utf-16le`). */
  encoding?: string;
  /** Use this profile (CSV; for HL7 its constants, value maps and hl7FieldMap apply). */
  profile?: MappingProfile;
  /**
   * Saved profiles: for a CSV the one whose header fingerprint matches the file is chosen; for HL7 the one saved
   * for the file's sender (`hl7Sender`), when exactly one is. Ignored when `profile` is given.
   */
  profiles?: MappingProfile[];
  codeLists: CodeLists;
  /**
   * The environment is the local sandbox: HL7 messages MSH-11 marks as a test system's (or re-sent from an archive)
   * are read with a warning there, where a live environment refuses them (`hl7.notLive`).
   */
  sandbox?: boolean;
  /** "Now" for date-of-birth checks; defaults to the current date. */
  today?: Date;
  /** The name problems and provenance use for the file; defaults to its base name. */
  fileLabel?: string;
  onProgress?: (progress: ImportProgress) => void;
  signal?: AbortSignal;
  /** True when the order was already queued or sent from an earlier batch (staging knows; the importer does not). */
  isKnownOrder?: (clinicCode: string, clinicOrderId: string) => boolean;
  /**
   * For cancels (HL7 ORC-1 CA) only: true when a new order with this identity came earlier and waits to be
   * accepted (the intake's held messages), so the cancel names a known order. A new order earlier in the same file
   * counts without it.
   */
  isPendingNewOrder?: (clinicCode: string, clinicOrderId: string) => boolean;
  /**
   * For cancels of a placer group (HL7 ORCs sharing one ORC-4) only: the item placer numbers (ORC-2) of the grouped
   * order accepted or waiting under this identity; undefined when none is or it is no group (group-cancel.ts). An
   * order earlier in the same file counts without it.
   */
  groupItemsOf?: (clinicCode: string, clinicOrderId: string) => readonly string[] | undefined;
  /**
   * Receives each order as it is finished instead of collecting them in the report, so a 100 MB file never holds
   * every order in memory: staging writes them to SQLite as they come. Awaited, so it can apply back-pressure.
   */
  onOrder?: (order: ImportedOrder, extras?: OrderExtras) => void | Promise<void>;
}
