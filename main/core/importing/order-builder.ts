import { mapValue, type CompiledProfile } from './compiled-profile.js';
import {
  FIELDS,
  HOME_TO_DELIVERY,
  ITEM_FIELD_INDEXES,
  ORDER_FIELD_INDEXES,
  describePath,
  itemPath,
} from './field-catalogue.js';
import { capitalise, describeSource, locationOf, problem, quote, type Location } from './problems.js';
import { convertValue } from './value-conversion.js';
import type { Problem, Provenance } from './types.js';

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

export interface OrderCells {
  /** By field index; only order-level fields are read. */
  order: (Cell | undefined)[];
  /** One entry per prescribed item, by field index; only item-level fields are read. */
  items: (Cell | undefined)[][];
}

export interface BuiltOrder {
  body: Record<string, unknown>;
  provenance: Record<string, Provenance>;
  /** Conversion problems (unreadable numbers and dates); their fields are in `reported`. */
  problems: Problem[];
  reported: Set<string> | undefined;
}

export interface BuildContext {
  file: string;
  today: Date;
  /** Where problems about absent fields point (the order's first row, or its message). */
  fallback: Location;
}

// Path pieces computed once: the container key (or undefined for top-level fields) and the leaf key.
const CONTAINERS = FIELDS.map((field) => {
  const parts = field.path.split('.');
  return field.level === 'item' || parts.length === 1 ? undefined : parts[0]!;
});
const LEAVES = FIELDS.map((field) => field.path.split('.').at(-1)!);
/** For each delivery field, the home field it defaults to. */
const HOME_OF = new Map(HOME_TO_DELIVERY.map(([home, delivery]) => [delivery, home]));

/** A fresh array with one slot per field. */
export const emptyCells = (): (Cell | undefined)[] => new Array<Cell | undefined>(FIELDS.length);

function withConstant(cell: Cell | undefined, index: number, profile: CompiledProfile): Cell | undefined {
  if (cell) return cell;
  const constant = profile.constants[index];
  return constant === undefined
    ? undefined
    : { value: constant, provenance: { kind: 'constant', profile: profile.name, column: FIELDS[index]!.column } };
}

export function buildOrder(cells: OrderCells, profile: CompiledProfile, ctx: BuildContext): BuiltOrder {
  const body: Record<string, unknown> = {
    customer: {},
    homeAddress: {},
    deliveryAddress: {},
    prescription: {},
    prescribedItems: [],
    prescribingDoctor: {},
    clinicInformation: {},
  };
  const provenance: Record<string, Provenance> = {};
  const problems: Problem[] = [];
  let reported: Set<string> | undefined;

  const place = (target: Record<string, unknown>, index: number, cell: Cell, path: string) => {
    const field = FIELDS[index]!;
    const mapped = profile.valueMaps[index] ? mapValue(profile, index, cell.value) : cell.value;
    const converted = convertValue(mapped, field.kind, profile.dateFormat, ctx.today);
    provenance[path] = cell.provenance;
    if (converted.ok) {
      target[LEAVES[index]!] = converted.value;
      return;
    }
    // Keep the text so the preview shows what was there; validation skips this field (already reported).
    target[LEAVES[index]!] = mapped;
    (reported ??= new Set()).add(path);
    const from = describeSource(cell.provenance);
    problems.push(
      problem(
        'error',
        ctx.file,
        locationOf(cell.provenance, ctx.fallback),
        converted.code,
        `${capitalise(describePath(path))} ${quote(mapped)}${from ? ` (${from})` : ''} ${converted.reason}.`,
        path,
      ),
    );
  };

  const order = cells.order;
  // No delivery field at all (in the file or as a constant): the order goes to the home address.
  let deliveryGiven = false;
  for (const [, delivery] of HOME_TO_DELIVERY) {
    if (order[delivery] !== undefined || profile.constants[delivery] !== undefined) deliveryGiven = true;
  }
  for (const index of ORDER_FIELD_INDEXES) {
    let cell = withConstant(order[index], index, profile);
    if (!deliveryGiven && cell === undefined) {
      const home = HOME_OF.get(index);
      if (home !== undefined) cell = withConstant(order[home], home, profile);
    }
    if (!cell) continue;
    const container = CONTAINERS[index];
    place(
      container === undefined ? body : (body[container] as Record<string, unknown>),
      index,
      cell,
      FIELDS[index]!.path,
    );
  }

  const items = body.prescribedItems as Record<string, unknown>[];
  for (let itemIndex = 0; itemIndex < cells.items.length; itemIndex += 1) {
    const itemCells = cells.items[itemIndex]!;
    const item: Record<string, unknown> = {};
    for (const index of ITEM_FIELD_INDEXES) {
      const cell = withConstant(itemCells[index], index, profile);
      if (cell) place(item, index, cell, itemPath(index, itemIndex));
    }
    items.push(item);
  }

  return { body, provenance, problems, reported };
}
