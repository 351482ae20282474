import { mapValue, type CompiledProfile } from './compiled-profile.js';
import {
  FIELDS,
  HOME_TO_DELIVERY,
  ITEM_FIELD_INDEXES,
  ORDER_FIELD_INDEXES,
  describePath,
  itemPath,
} from '../model/field-catalogue.js';
import { capitalise, describeSource, locationOf, problem, quote, type Location } from './problems.js';
import { convertValue } from './value-conversion.js';
import { currencyConflict, readMoneyText } from './amounts.js';
import { ProvenanceTable, provenanceOf, type Origin } from '../model/provenance-table.js';
import type { Problem, Provenance } from '../model/imported-order.js';

/**
 * Builds one create-with-clinic v1 body from the cells the CSV rows or the HL7 message gave, applying the profile's
 * constants and value maps, defaulting the delivery address to the home address, and converting each text to the
 * type its field needs. Both importers end here, so a CSV order and an HL7 order are built the same way.
 */

export interface Cell {
  /** Trimmed, non-empty. */
  value: string;
  provenance: Provenance;
}

/** One order's (or one item's) texts by field index, each with its origin (one origin may stand for all). */
export interface CellSet {
  /** Trimmed, non-empty, or undefined. */
  values: (string | undefined)[];
  origins: (Origin | undefined)[] | Origin;
}

export interface OrderCells {
  /** Only order-level fields are read. */
  order: CellSet;
  /** One entry per prescribed item; only item-level fields are read. */
  items: CellSet[];
  /** CSV: the header text of the column each field was read from (for row-number origins), by field index. */
  columns?: readonly (string | undefined)[];
}

export interface BuiltOrder {
  body: Record<string, unknown>;
  provenance: ProvenanceTable;
  /** Conversion problems (unreadable numbers and dates); their fields are in `reported`. */
  problems: Problem[];
  reported: Set<string> | undefined;
}

export interface BuildContext {
  file: string;
  today: Date;
  /** Where problems about absent fields point (the order's first row, or its message). */
  fallback: Location;
  /** A semicolon-delimited CSV: `24,50` is read as 24.50 (value-conversion.ts). */
  decimalComma?: boolean;
}

// Path pieces computed once: the container key (or undefined for top-level fields) and the leaf key.
const CONTAINERS = FIELDS.map((field) => {
  const parts = field.path.split('.');
  return field.level === 'item' || parts.length === 1 ? undefined : parts[0]!;
});
const LEAVES = FIELDS.map((field) => field.path.split('.').at(-1)!);
const KINDS = FIELDS.map((field) => field.kind);
const CURRENCY = FIELDS.findIndex((field) => field.column === 'currencyCode');
/** For each delivery field (by index), the home field it defaults to. */
const HOME_OF: (number | undefined)[] = [];
for (const [home, delivery] of HOME_TO_DELIVERY) HOME_OF[delivery] = home;

/** A fresh array with one slot per field. */
export const emptyCells = (): (Cell | undefined)[] => new Array<Cell | undefined>(FIELDS.length);

/** Cell objects (as the HL7 map reads them) as a CellSet. */
export function cellSet(cells: readonly (Cell | undefined)[]): CellSet {
  const values = new Array<string | undefined>(FIELDS.length);
  const origins = new Array<Origin | undefined>(FIELDS.length);
  for (let i = 0; i < cells.length; i += 1) {
    const cell = cells[i];
    if (cell) {
      values[i] = cell.value;
      origins[i] = cell.provenance;
    }
  }
  return { values, origins };
}

const originAt = (set: CellSet, index: number): Origin | undefined =>
  Array.isArray(set.origins) ? set.origins[index] : set.origins;

/** A constant's provenance, one object per profile and field (origins are never changed). */
const constantOrigins = new WeakMap<CompiledProfile, Provenance[]>();
function constantOrigin(profile: CompiledProfile, index: number): Provenance {
  let origins = constantOrigins.get(profile);
  if (!origins) {
    origins = [];
    constantOrigins.set(profile, origins);
  }
  return (origins[index] ??= { kind: 'constant', profile: profile.name, column: FIELDS[index]!.column });
}

export function buildOrder(cells: OrderCells, profile: CompiledProfile, ctx: BuildContext): BuiltOrder {
  const run = new BuildRun(profile, ctx, cells.columns, orderCurrency(cells.order, profile));
  const body = run.body;
  const order = cells.order;
  // No delivery field at all (in the file or as a constant): the order goes to the home address.
  let deliveryGiven = false;
  for (const [, delivery] of HOME_TO_DELIVERY) {
    if (order.values[delivery] !== undefined || profile.constants[delivery] !== undefined) deliveryGiven = true;
  }
  for (const index of ORDER_FIELD_INDEXES) {
    const container = CONTAINERS[index];
    const target = container === undefined ? body : (body[container] as Record<string, unknown>);
    const path = FIELDS[index]!.path;
    if (run.placeFrom(target, order, index, index, -1, path) || deliveryGiven) continue;
    const home = HOME_OF[index];
    if (home !== undefined) run.placeFrom(target, order, index, home, -1, path);
  }

  const items = body.prescribedItems as Record<string, unknown>[];
  for (let itemIndex = 0; itemIndex < cells.items.length; itemIndex += 1) {
    const itemCells = cells.items[itemIndex]!;
    const item: Record<string, unknown> = {};
    for (const index of ITEM_FIELD_INDEXES) {
      run.placeFrom(item, itemCells, index, index, itemIndex, itemPath(index, itemIndex));
    }
    items.push(item);
  }

  return { body, provenance: run.provenance, problems: run.problems, reported: run.reported };
}

/** The order's currency code as it will be sent (its cell or the profile's constant, mapped, upper-cased). */
function orderCurrency(order: CellSet, profile: CompiledProfile): string | undefined {
  const value = order.values[CURRENCY] ?? profile.constants[CURRENCY];
  if (value === undefined) return undefined;
  return (profile.valueMaps[CURRENCY] ? mapValue(profile, CURRENCY, value) : value).trim().toUpperCase();
}

// An HL7 field's text is converted with reasons that speak of its sender (value-conversion.ts).
const HL7_CONVERT = { hl7: true } as const;

/** One order being built (methods rather than closures: nothing is allocated per field, or per order for them). */
class BuildRun {
  readonly body: Record<string, unknown> = {
    customer: {},
    homeAddress: {},
    deliveryAddress: {},
    prescription: {},
    prescribedItems: [],
    prescribingDoctor: {},
    clinicInformation: {},
  };
  readonly provenance: ProvenanceTable;
  readonly problems: Problem[] = [];
  reported: Set<string> | undefined;

  constructor(
    private readonly profile: CompiledProfile,
    private readonly ctx: BuildContext,
    private readonly columns: readonly (string | undefined)[] | undefined,
    /** For amounts written with a currency (amounts.ts). */
    private readonly currency: string | undefined,
  ) {
    this.provenance = new ProvenanceTable(ctx.file, columns);
  }

  /** Places `set`'s value of field `from` (or the profile's constant) as field `index`; false if there is none. */
  placeFrom(
    target: Record<string, unknown>,
    set: CellSet,
    index: number,
    from: number,
    item: number,
    path: string,
  ): boolean {
    const value = set.values[from];
    if (value !== undefined) {
      this.place(target, index, item, from, value, originAt(set, from)!, path);
      return true;
    }
    const constant = this.profile.constants[from];
    if (constant === undefined) return false;
    this.place(target, index, item, from, constant, constantOrigin(this.profile, from), path);
    return true;
  }

  place(
    target: Record<string, unknown>,
    index: number,
    item: number,
    from: number,
    value: string,
    origin: Origin,
    path: string,
  ): void {
    const { profile, ctx } = this;
    const kind = KINDS[index]!;
    const mapped = profile.valueMaps[index] ? mapValue(profile, index, value) : value;
    this.provenance.add(index, item, from, origin);
    // Text (most fields) needs no conversion.
    if (kind === 'text') {
      target[LEAVES[index]!] = mapped;
      return;
    }
    // The number fields are amounts: a currency written with one must be the order's, and the number is the value.
    const money = kind === 'number' ? readMoneyText(mapped) : undefined;
    const conflict = money && currencyConflict(money, this.currency);
    const converted = conflict
      ? ({ ok: false, code: 'value.currency', reason: conflict } as const)
      : convertValue(
          money ? money.number : mapped,
          kind,
          profile.dateFormat,
          ctx.today,
          typeof origin !== 'number' && origin.kind === 'hl7' ? HL7_CONVERT : ctx,
        );
    if (converted.ok) {
      target[LEAVES[index]!] = converted.value;
      return;
    }
    // Keep the text so the preview shows what was there; validation skips this field (already reported).
    target[LEAVES[index]!] = mapped;
    (this.reported ??= new Set()).add(path);
    const source = provenanceOf(origin, ctx.file, this.columns?.[from]);
    const described = describeSource(source);
    this.problems.push(
      problem(
        'error',
        ctx.file,
        locationOf(source, ctx.fallback),
        converted.code,
        `${capitalise(describePath(path))} ${quote(mapped)}${described ? ` (${described})` : ''} ${converted.reason}.`,
        path,
      ),
    );
  }
}
