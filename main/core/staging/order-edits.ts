import { FIELDS, describePath, fieldIndex, type FieldSpec } from '../model/field-catalogue.js';
import { capitalise, quote } from '../importing/problems.js';
import type { Problem, Provenance } from '../model/imported-order.js';
import { convertValue } from '../importing/value-conversion.js';
import { currencyConflict, readMoneyText } from '../importing/amounts.js';
import type { StagedProvenance } from '../store/staged-orders-repo.js';

/**
 * Applying an admin's edits to a staged body: one field by its path, or the whole body. A value is read the way
 * the importer reads a cell of that field (numbers become numbers, dates must be unambiguous, codes stay text),
 * so an edit and a re-import give the same body. Edited fields' provenance becomes `edited` (keeping where the
 * replaced value came from); untouched fields keep theirs.
 */

export type EditValue = string | number | boolean | null;

export interface FieldEdit {
  /** Dotted body path, e.g. `customer.dateOfBirth` or `prescribedItems.0.quantity`. */
  path: string;
  /** The new value; null or blank text removes the field. */
  value: EditValue;
}

export class EditError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EditError';
  }
}

type Obj = Record<string, unknown>;

const isObject = (value: unknown): value is Obj => value !== null && typeof value === 'object' && !Array.isArray(value);
const MAX_ITEMS = 100;

/** The catalogue field a concrete path names, and where it sits. */
export function resolveEditPath(path: string): { field: FieldSpec; parts: string[]; itemIndex?: number } {
  const index = fieldIndex(path);
  const field = index === undefined ? undefined : FIELDS[index];
  if (!field || path.includes('*') || (field.level === 'order' && path !== field.path)) {
    throw new EditError(`${path} is not a field of an order`);
  }
  if (field.level === 'order') return { field, parts: field.path.split('.') };
  const match = /^prescribedItems\.(\d+)\.[A-Za-z]+$/.exec(path);
  const itemIndex = match ? Number(match[1]) : Number.NaN;
  if (!Number.isSafeInteger(itemIndex) || itemIndex >= MAX_ITEMS) throw new EditError(`${path} names no item`);
  return { field, parts: path.split('.'), itemIndex };
}

/**
 * How the importer would read `value` for this field: the body value, or the problem it has. `currency` is the
 * order's currency code (upper-cased), against which an amount written with a currency (`£12.50`) is read.
 */
export function readEditValue(
  field: FieldSpec,
  path: string,
  value: EditValue,
  today: Date,
  file: string,
  currency?: string,
): { value: unknown; problem?: Problem } {
  if (value === null) return { value: undefined };
  if (typeof value === 'number' && (field.kind === 'int' || field.kind === 'number') && Number.isFinite(value)) {
    return { value };
  }
  const text = String(value).trim();
  if (text === '') return { value: undefined };
  // Amounts: a currency written with one must be the order's, and the number is the value (as on import).
  const money = field.kind === 'number' ? readMoneyText(text) : undefined;
  const conflict = money && currencyConflict(money, currency);
  const converted = conflict
    ? ({ ok: false, code: 'value.currency', reason: conflict } as const)
    : convertValue(money ? money.number : text, field.kind, undefined, today);
  if (converted.ok) return { value: converted.value };
  // Kept as typed, as the importer keeps an unreadable cell, so the admin sees what is wrong with it.
  return {
    value: text,
    problem: {
      severity: 'error',
      file,
      field: path,
      code: converted.code,
      text: `${capitalise(describePath(path))} ${quote(text)} ${converted.reason}.`,
    },
  };
}

function editedOrigin(previous: StagedProvenance | undefined, at: string): StagedProvenance {
  if (!previous) return { kind: 'edited', at };
  const was: Provenance | undefined = previous.kind === 'edited' ? previous.was : previous;
  return was ? { kind: 'edited', at, was } : { kind: 'edited', at };
}

export interface EditOutcome {
  body: Obj;
  provenance: Record<string, StagedProvenance>;
  /** Paths whose value changed. */
  changed: string[];
  /** Values that could not be read (kept as text, reported on their field). */
  problems: Problem[];
}

const CURRENCY_PATH = 'prescription.currencyCode';

/** The order's currency code once these edits are made (an edit of it among them wins), upper-cased. */
function editedCurrency(body: Obj, edits: readonly FieldEdit[]): string | undefined {
  const edit = edits.findLast((candidate) => candidate.path === CURRENCY_PATH);
  const prescription = body.prescription;
  const value = edit ? edit.value : isObject(prescription) ? prescription.currencyCode : undefined;
  return typeof value === 'string' && value.trim() !== '' ? value.trim().toUpperCase() : undefined;
}

/** Applies field edits to a copy of `body`. An item path one past the last item adds an item. */
export function applyFieldEdits(
  body: unknown,
  provenance: Record<string, StagedProvenance>,
  edits: readonly FieldEdit[],
  context: { today: Date; at: string; file: string },
): EditOutcome {
  const next: Obj = isObject(body) ? structuredClone(body) : {};
  const origins = { ...provenance };
  const changed: string[] = [];
  const problems: Problem[] = [];
  const currency = editedCurrency(next, edits);
  for (const edit of edits) {
    const { field, parts, itemIndex } = resolveEditPath(edit.path);
    const read = readEditValue(field, edit.path, edit.value, context.today, context.file, currency);
    let target: Obj;
    if (itemIndex === undefined) {
      const container = parts.length > 1 ? parts[0]! : undefined;
      if (container && !isObject(next[container])) next[container] = {};
      target = container ? (next[container] as Obj) : next;
    } else {
      if (!Array.isArray(next.prescribedItems)) next.prescribedItems = [];
      const items = next.prescribedItems as unknown[];
      if (itemIndex > items.length) {
        throw new EditError(`${edit.path} names item ${itemIndex + 1}, but the order has ${items.length} items`);
      }
      if (itemIndex === items.length) items.push({});
      if (!isObject(items[itemIndex])) items[itemIndex] = {};
      target = items[itemIndex] as Obj;
    }
    const leaf = parts.at(-1)!;
    if (read.problem) problems.push(read.problem);
    if (target[leaf] === read.value) continue;
    if (read.value === undefined) delete target[leaf];
    else target[leaf] = read.value;
    origins[edit.path] = editedOrigin(provenance[edit.path], context.at);
    changed.push(edit.path);
  }
  return { body: next, provenance: origins, changed, problems };
}

/** Every primitive value of a body by its dotted path. */
function leaves(value: unknown, prefix = '', out = new Map<string, unknown>()): Map<string, unknown> {
  if (Array.isArray(value))
    value.forEach((inner, index) => leaves(inner, prefix ? `${prefix}.${index}` : `${index}`, out));
  else if (isObject(value)) {
    for (const [key, inner] of Object.entries(value)) leaves(inner, prefix ? `${prefix}.${key}` : key, out);
  } else if (prefix) out.set(prefix, value);
  return out;
}

/** dm+d codes are digit strings in a staged body; a replacement body may carry them as JSON numbers. */
export function normaliseDmdCodes(body: Obj): Obj {
  const items = body.prescribedItems;
  if (!Array.isArray(items)) return body;
  for (const item of items) {
    if (isObject(item) && typeof item.dmdCode === 'number' && Number.isSafeInteger(item.dmdCode)) {
      item.dmdCode = String(item.dmdCode);
    }
  }
  return body;
}

/** Replaces the whole body: values that did not change keep their provenance, changed ones become `edited`. */
export function replaceBody(
  body: unknown,
  provenance: Record<string, StagedProvenance>,
  replacement: Obj,
  at: string,
): EditOutcome {
  const next = normaliseDmdCodes(structuredClone(replacement));
  const before = leaves(body);
  const after = leaves(next);
  const origins: Record<string, StagedProvenance> = {};
  const changed: string[] = [];
  for (const path of new Set([...before.keys(), ...after.keys()])) {
    const same = before.has(path) && after.has(path) && Object.is(before.get(path), after.get(path));
    if (same) {
      if (provenance[path]) origins[path] = provenance[path];
      continue;
    }
    changed.push(path);
    origins[path] = editedOrigin(provenance[path], at);
  }
  // Provenance of a value that was absent stays with its path only if the path still exists.
  for (const [path, origin] of Object.entries(provenance)) {
    if (!(path in origins) && after.has(path)) origins[path] = origin;
  }
  return { body: next, provenance: origins, changed, problems: [] };
}
