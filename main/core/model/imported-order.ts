import type { Hl7Sender, ProfileChoice } from '../../../shared/staging-views.js';
import type { MappingProfile } from './mapping-profile.js';

/** Where one value of a body came from, so the preview can point at the cell or the HL7 field. */
export type Provenance =
  | { kind: 'csv'; file: string; /** 1-based physical line where the record starts */ row: number; column: string }
  | {
      kind: 'hl7';
      file: string;
      /** 1-based message index within the file */
      message: number;
      /** segment-field path, e.g. `RXE-12` or `PID-11[2].5` */
      path: string;
      /** the raw segment text */
      segment: string;
    }
  | { kind: 'constant'; profile: string; column: string };

/** A problem is a value: a person reads `text`, code reads `code`; `field` is a dotted body path. */
export interface Problem {
  severity: 'error' | 'warning';
  file: string;
  row?: number;
  message?: number;
  field?: string;
  code: string;
  text: string;
}

/**
 * The codes of a message that is no order at all (unreadable, another message type, a header alone, no item): no
 * edit in the preview makes an order of it; the sender must send another message. Such an entry is staged only so
 * that the preview shows every message of its file.
 */
export const NOT_AN_ORDER_CODES: ReadonlySet<string> = new Set([
  'hl7.unreadable',
  'hl7.messageType',
  'hl7.headerOnly',
  'hl7.noItems',
]);

export const isNotAnOrder = (problems: readonly Pick<Problem, 'code'>[]): boolean =>
  problems.some((problem) => NOT_AN_ORDER_CODES.has(problem.code));

export type OrderControl = 'NW' | 'CA';

export interface ImportedOrder {
  clinicCode: string | null;
  clinicOrderId: string | null;
  /** The create-with-clinic v1 body as it would be sent (best effort when invalid); dm+d codes are digit strings. */
  body: unknown;
  /** No error-severity problems. */
  valid: boolean;
  problems: Problem[];
  /** Keyed by dotted body path, e.g. `prescribedItems.0.dmdCode`. */
  provenance: Record<string, Provenance>;
  source: {
    file: string;
    /** CSV: the physical lines of the records that made this order, in file order. */
    rows?: number[];
    /** CSV: the original record texts (same order as `rows`), for the error export. */
    records?: string[];
    /** HL7: the 1-based message index. */
    message?: number;
    /** HL7: the original message (segments joined by `\r`), for the HL7-forward route. */
    hl7?: string;
    orderControl?: OrderControl;
  };
}

export interface ImportReport {
  file: string;
  format: 'csv' | 'hl7';
  encoding: string;
  encodingDetected: boolean;
  delimiter?: string;
  /** CSV: physical line of the header row. */
  headerRow?: number;
  /** CSV: the header cells as read (a neutralised formula cell restored), and the header record's original text. */
  header?: { cells: string[]; text: string };
  /**
   * CSV in which no header row was found: the row offered to the admin to map as its header (its line and cells),
   * the first of the sample's most common width. Saved as a profile, the file is read with it.
   */
  candidateHeader?: { row: number; cells: string[] };
  messageTypes?: string[];
  /** Name of the mapping profile used (`template`, `suggested`, or a saved profile's name). */
  profile?: string;
  /** The profile actually applied (for CSV, after auto-choice), so the UI can show or save it. */
  appliedProfile?: MappingProfile;
  /** How the profile was chosen (named, by the CSV header, by the HL7 sender…) and why, in a sentence. */
  profileChoice?: ProfileChoice;
  /** HL7: who sent the file (MSH-3/MSH-4, or FHS/BHS; the first message's type), when it says. */
  hl7Sender?: Hl7Sender;
  /** HL7: each message's sender as live intake's rules name them (`APP^FACILITY`), each once (hl7-sender.ts). */
  hl7MessageSenders?: { senders: string[]; more: boolean };
  /** CSV: data records read (after the header, blank ones excluded); HL7: messages read. */
  rowsRead: number;
  /** Every order, unless `onOrder` was given: then they went there and this is empty. */
  orders: ImportedOrder[];
  orderCount: number;
  invalidCount: number;
  fileProblems: Problem[];
}

export interface ImportProgress {
  bytes: number;
  totalBytes: number;
  rows: number;
}
