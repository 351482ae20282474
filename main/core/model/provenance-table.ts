import { FIELDS, itemPath } from './field-catalogue.js';
import type { ImportedOrder, Provenance } from './imported-order.js';

/**
 * Where a cell's text came from: its provenance, or, for a CSV cell, just the row number (the file is the order's
 * and the column is the header of the cell's column, kept beside it). A CSV order's 45 values then cost no
 * provenance objects at all unless someone reads them.
 */
export type Origin = Provenance | number;

/** Entries of an order with two items from our template. */
const TYPICAL_ENTRIES = 48;

/** What the staging codec reads (main/core/store/provenance-codec.ts): `count` entries, one per placed value. */
export interface ProvenanceEntries {
  readonly count: number;
  /** Per entry: which field of which item, and which column it was read from (see `entryCode`). */
  readonly codes: readonly number[];
  readonly origins: readonly Origin[];
  /** CSV: the header text of each field's column, by field index (what a row-number origin's column is). */
  readonly columns: readonly (string | undefined)[] | undefined;
  /** HL7: the message's segments, the very strings the origins name (so finding one is an identity check). */
  readonly segments?: readonly string[] | undefined;
}

/**
 * An entry's field (catalogue index), item index (-1 for an order field) and source field (whose column a
 * row-number origin names: the home field for a delivery value that defaulted to it), packed in one number.
 */
export const entryCode = (field: number, item: number, source: number): number =>
  field + source * 256 + (item + 1) * 65_536;
export const codeField = (code: number): number => code % 256;
export const codeSource = (code: number): number => Math.floor(code / 256) % 256;
export const codeItem = (code: number): number => Math.floor(code / 65_536) - 1;

/** An entry's body path: every importer path is a catalogue field's. */
export const entryPath = (code: number): string => {
  const field = codeField(code);
  const item = codeItem(code);
  return item < 0 ? FIELDS[field]!.path : itemPath(field, item);
};

/**
 * An order's provenance as the importer collects it: entries side by side, in the order the values were placed.
 * The `Record<string, Provenance>` that `ImportedOrder.provenance` promises is built only when someone reads it (a
 * test, a problem's location, the preview): an object with 45 keys added one by one is a dictionary to V8, slow to
 * fill and slower to walk, and staging never needs it: the importer hands this table to `onOrder` beside the
 * order, and staging stores provenance straight from it. For 50,000 orders that was most of provenance's cost.
 */
export class ProvenanceTable implements ProvenanceEntries {
  count = 0;
  // Sized for a typical order up front (they grow past it as needed): growing arrays by push, step by step, was a
  // good part of what building an order allocated.
  readonly codes: number[] = new Array<number>(TYPICAL_ENTRIES);
  readonly origins: Origin[] = new Array<Origin>(TYPICAL_ENTRIES);
  segments: readonly string[] | undefined;
  #record: Record<string, Provenance> | undefined;

  /** `file` is what row-number origins name, `columns` their columns by field index. */
  constructor(
    readonly file: string,
    readonly columns: readonly (string | undefined)[] | undefined,
  ) {}

  /** Each field of each item is added once (a value is placed once). */
  add(field: number, item: number, source: number, origin: Origin): void {
    if (this.#record) throw new Error('provenance is complete once it has been read');
    const at = this.count;
    this.codes[at] = entryCode(field, item, source);
    this.origins[at] = origin;
    this.count = at + 1;
  }

  /** Entry `at` as a Provenance object. */
  provenanceAt(at: number): Provenance {
    return provenanceOf(this.origins[at]!, this.file, this.columns?.[codeSource(this.codes[at]!)]);
  }

  /** The origin of one path (for a problem's location), without building the record. */
  get(path: string): Provenance | undefined {
    for (let at = 0; at < this.count; at += 1) if (entryPath(this.codes[at]!) === path) return this.provenanceAt(at);
    return undefined;
  }

  /** Says `path` came from `origin` instead (a value the importer moved after placing it); false if not placed. */
  replace(path: string, origin: Provenance): boolean {
    if (this.#record) throw new Error('provenance is complete once it has been read');
    for (let at = 0; at < this.count; at += 1) {
      if (entryPath(this.codes[at]!) !== path) continue;
      this.origins[at] = origin;
      return true;
    }
    return false;
  }

  /** The provenance as a record; built once, on first use. */
  record(): Record<string, Provenance> {
    if (!this.#record) {
      const record: Record<string, Provenance> = {};
      for (let i = 0; i < this.count; i += 1) record[entryPath(this.codes[i]!)] = this.provenanceAt(i);
      this.#record = record;
    }
    return this.#record;
  }
}

/** An origin as a Provenance object; a row number names `file` and `column`. */
export function provenanceOf(origin: Origin, file: string, column: string | undefined): Provenance {
  return typeof origin === 'number' ? { kind: 'csv', file, row: origin, column: column ?? '' } : origin;
}

/** What an importer hands `onOrder` beside each order: its provenance as collected (see ProvenanceTable). */
export interface OrderExtras {
  provenance: ProvenanceTable;
}

/**
 * An imported order whose `provenance` record is built from its table on first read (and can be replaced like a
 * plain property). `provenance` is an own, enumerable accessor, so the order spreads, compares and serialises like
 * a plain object; the accessor is one shared pair and the table a private field, so this costs no closures and no
 * per-order shapes.
 */
class ImportedOrderRecord implements ImportedOrder {
  clinicCode: string | null;
  clinicOrderId: string | null;
  body: unknown;
  valid: boolean;
  problems: ImportedOrder['problems'];
  declare provenance: Record<string, Provenance>;
  source: ImportedOrder['source'];
  #table: ProvenanceTable;
  #replaced: Record<string, Provenance> | undefined;

  constructor(fields: Omit<ImportedOrder, 'provenance'>, table: ProvenanceTable) {
    this.clinicCode = fields.clinicCode;
    this.clinicOrderId = fields.clinicOrderId;
    this.body = fields.body;
    this.valid = fields.valid;
    this.problems = fields.problems;
    this.source = fields.source;
    this.#table = table;
    Object.defineProperty(this, 'provenance', ImportedOrderRecord.#accessor);
  }

  static readonly #accessor: PropertyDescriptor = {
    enumerable: true,
    configurable: true,
    get(this: ImportedOrderRecord) {
      return this.#replaced ?? this.#table.record();
    },
    set(this: ImportedOrderRecord, value: Record<string, Provenance>) {
      this.#replaced = value;
    },
  };
}

/** An imported order whose `provenance` record is built from `table` on first read. */
export function importedOrder(fields: Omit<ImportedOrder, 'provenance'>, table: ProvenanceTable): ImportedOrder {
  return new ImportedOrderRecord(fields, table);
}
