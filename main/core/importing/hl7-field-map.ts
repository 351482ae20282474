import { FIELDS, fieldByColumn, fieldIndex } from './field-catalogue.js';
import type { Hl7Message, Hl7Segment } from './hl7-adapter.js';
import { cellSet, emptyCells, type Cell, type OrderCells } from './order-builder.js';
import { problem } from './problems.js';
import type { Problem } from './types.js';

/**
 * The default HL7 v2.5 field map (documented as a table in README.md), and profile overrides of it. Values that
 * need a choice between repetitions (home vs mailing address, phone vs email) or a fallback (clinic code from
 * ORC-21 or MSH-4) are read by small functions here; an override is a plain path such as `ZPY-1` or `RXE-28`.
 */

export const ACCEPTED_MESSAGE_TYPES = ['RDE^O11', 'OMP^O09', 'ORM^O01'] as const;

/** For the README and the UI: where each field comes from by default. */
export const DEFAULT_HL7_MAP: readonly { column: string; source: string }[] = [
  { column: 'surname', source: 'PID-5.1 (family name)' },
  { column: 'firstName', source: 'PID-5.2 (given name)' },
  { column: 'title', source: 'PID-5.5 (prefix)' },
  { column: 'dateOfBirth', source: 'PID-7 (YYYYMMDD...)' },
  { column: 'gender', source: 'PID-8 (M, F, O, U mapped to Male, Female, Other, Unknown)' },
  { column: 'telephone', source: 'PID-13: first repetition that is a phone (XTN-1, else XTN-12)' },
  { column: 'email', source: 'PID-13: first repetition with an email (XTN-4; use code NET / type Internet)' },
  {
    column: 'homeAddress1 … homeCountryCode',
    source: 'PID-11 home repetition (type H, else the first that is not mailing): XAD-1, 2, 3, 4, 5, 6',
  },
  {
    column: 'deliveryAddress1 … deliveryCountryCode',
    source: 'PID-11 repetition of type M (mailing) or SH (shipping); none: the home address',
  },
  { column: 'clinicOrderId', source: 'ORC-2.1 (placer order number)' },
  { column: 'prescriberRegistrationNumber', source: 'ORC-12.1 (ordering provider id)' },
  { column: 'prescriberName', source: 'ORC-12: prefix (6), given (3), family (2), joined by spaces' },
  { column: 'clinicCode', source: 'ORC-21.10 (organisation identifier), else ORC-21.3, else MSH-4.1' },
  { column: 'clinicName', source: 'ORC-21.1' },
  { column: 'clinicAddress1 … clinicAddress4', source: 'ORC-22.1 … ORC-22.4' },
  { column: 'clinicPostcode, clinicCountryCode', source: 'ORC-22.5, ORC-22.6' },
  { column: 'clinicContactNumber, clinicContactEmail', source: 'ORC-23, phone and email repetitions as PID-13' },
  {
    column: 'dmdCode, medication',
    source: 'RXE-2.1 and RXE-2.2 when RXE-2.3 is DMD or SCT (else RXE-2.4/2.5 when RXE-2.6 is); RXO-1 for OMP/ORM',
  },
  { column: 'dosageInstructions', source: 'RXE-7.2, else RXE-7.1; RXO-7' },
  { column: 'quantity', source: 'RXE-10; RXO-11' },
  { column: 'repeatsAllowed', source: 'RXE-12; RXO-13 (the same on every item: v1 has one value per order)' },
  {
    column: 'paymentType, courierCode, currencyCode and the rest',
    source: 'not in HL7: profile constants, or an hl7FieldMap entry such as courierCode → ZDL-1',
  },
];

/** The default value maps for HL7 tables (profile value maps override them). */
export const HL7_VALUE_MAPS: Record<string, Record<string, string>> = {
  gender: { M: 'Male', F: 'Female', O: 'Other', U: 'Unknown' },
};

export interface Hl7Extraction {
  cells: OrderCells;
  orderControl: string;
  problems: Problem[];
  /** Paths whose problem was reported here (e.g. a wrong coding system), skipped by validation. */
  reported: Set<string>;
}

export interface ParsedPath {
  segment: string;
  field: number;
  repetition: number;
  component: number;
  subcomponent: number;
}

const PATH = /^([A-Z][A-Z0-9]{2})-(\d{1,3})(?:\[(\d{1,3})\])?(?:\.(\d{1,3}))?(?:\.(\d{1,3}))?$/;

export function parseHl7Path(text: string): ParsedPath | undefined {
  const m = PATH.exec(text.trim());
  if (!m || Number(m[2]) < 1) return undefined;
  return {
    segment: m[1]!,
    field: Number(m[2]),
    repetition: Number(m[3] ?? 1),
    component: Number(m[4] ?? 1),
    subcomponent: Number(m[5] ?? 1),
  };
}

function labelOf(segment: string, field: number, component?: number, repetition = 1, subcomponent = 1): string {
  const rep = repetition > 1 ? `[${repetition}]` : '';
  const comp = component === undefined ? '' : `.${component}`;
  return `${segment}-${field}${rep}${comp}${subcomponent > 1 ? `.${subcomponent}` : ''}`;
}

/** Labels repeat for every message (`PID-5.1`…): each is built once. */
const labels = new Map<string, Map<number, string>>();

function pathLabel(segment: string, field: number, component?: number, repetition = 1, subcomponent = 1): string {
  if (field > 999 || (component ?? 0) > 999 || repetition > 99 || subcomponent > 99) {
    return labelOf(segment, field, component, repetition, subcomponent);
  }
  let bySegment = labels.get(segment);
  if (!bySegment) {
    bySegment = new Map();
    if (labels.size < 256) labels.set(segment, bySegment);
  }
  const key = ((field * 1000 + (component ?? 0)) * 100 + repetition) * 100 + subcomponent;
  let label = bySegment.get(key);
  if (label === undefined) {
    label = labelOf(segment, field, component, repetition, subcomponent);
    if (bySegment.size < 4096) bySegment.set(key, label);
  }
  return label;
}

/** Field index by template column, for the columns this map fills. */
const INDEX_OF = new Map(FIELDS.map((field, index) => [field.column, index]));
const ADDRESS_SUFFIXES = ['Address1', 'Address2', 'City', 'County', 'PostCode', 'CountryCode'];
const ADDRESS_COLUMNS = {
  home: ADDRESS_SUFFIXES.map((suffix) => `home${suffix}`),
  delivery: ADDRESS_SUFFIXES.map((suffix) => `delivery${suffix}`),
};

const PHONE_USE_EMAIL = new Set(['NET', 'X.400']);
const EMAIL_TYPES = new Set(['INTERNET', 'X.400']);
const DELIVERY_TYPES = new Set(['M', 'SH']);
const DMD_SYSTEMS = new Set(['DMD', 'SCT']);

export interface Hl7MapContext {
  file: string;
  messageIndex: number;
  /** Profile overrides: template column → path. */
  overrides?: Record<string, string>;
}

/** Reads a message's cells into `order` (methods rather than closures: nothing allocated per message for them). */
class CellReader {
  constructor(
    private readonly ctx: Hl7MapContext,
    private readonly order: (Cell | undefined)[],
  ) {}

  cell(segment: Hl7Segment, path: string, value: string): Cell | undefined {
    if (value === '') return undefined;
    const { file, messageIndex } = this.ctx;
    return { value, provenance: { kind: 'hl7', file, message: messageIndex, path, segment: segment.raw } };
  }

  read(segment: Hl7Segment | undefined, field: number, component = 1, repetition = 1, sub = 1): Cell | undefined {
    if (!segment) return undefined;
    const value = segment.value(field, component, sub, repetition);
    return value === ''
      ? undefined
      : this.cell(segment, pathLabel(segment.name, field, component, repetition, sub), value);
  }

  set(column: string, value: Cell | undefined): void {
    if (value) this.order[INDEX_OF.get(column)!] = value;
  }

  put(cells: (Cell | undefined)[], column: string, value: Cell | undefined): void {
    if (value) cells[INDEX_OF.get(column)!] = value;
  }

  /** PID-13 / ORC-23: the first repetition that is a phone, and the first with an email. */
  contacts(segment: Hl7Segment | undefined, field: number, phoneColumn: string, emailColumn: string): void {
    if (!segment) return;
    let phone: Cell | undefined;
    let email: Cell | undefined;
    for (let rep = 1; rep <= segment.repetitions(field); rep += 1) {
      const use = segment.value(field, 2, 1, rep).toUpperCase();
      const type = segment.value(field, 3, 1, rep).toUpperCase();
      const address = this.read(segment, field, 4, rep);
      const first = this.read(segment, field, 1, rep);
      if (PHONE_USE_EMAIL.has(use) || EMAIL_TYPES.has(type) || address) {
        email ??= address ?? (first?.value.includes('@') ? first : undefined);
      } else {
        phone ??= first ?? this.read(segment, field, 12, rep);
      }
    }
    this.set(phoneColumn, phone);
    this.set(emailColumn, email);
  }

  /** PID-11 repetition `rep` (none when 0) as the home or delivery address. */
  address(pid: Hl7Segment, prefix: 'home' | 'delivery', rep: number): void {
    if (rep === 0) return;
    const columns = ADDRESS_COLUMNS[prefix];
    for (let i = 0; i < columns.length; i += 1) this.set(columns[i]!, this.read(pid, 11, i + 1, rep));
  }
}

export function extractHl7Order(message: Hl7Message, ctx: Hl7MapContext): Hl7Extraction {
  const problems: Problem[] = [];
  const reported = new Set<string>();
  const where = { message: ctx.messageIndex };
  const order = emptyCells();
  const r = new CellReader(ctx, order);

  const msh = message.first('MSH')!;
  const pid = message.first('PID');
  const orcs = message.all('ORC');
  const orc = orcs[0];

  // Patient: name, birth date, sex.
  r.set('surname', r.read(pid, 5, 1));
  r.set('firstName', r.read(pid, 5, 2));
  r.set('title', r.read(pid, 5, 5));
  r.set('dateOfBirth', r.read(pid, 7, 1));
  r.set('gender', r.read(pid, 8, 1));

  // PID-13 / ORC-23 repetitions: the first phone and the first email.
  r.contacts(pid, 13, 'telephone', 'email');

  // PID-11: the home address, and a mailing or shipping repetition as the delivery address.
  if (pid) {
    const count = pid.repetitions(11);
    const types = Array.from({ length: count }, (_, i) => pid.value(11, 7, 1, i + 1).toUpperCase());
    const deliveryRep = types.findIndex((type) => DELIVERY_TYPES.has(type)) + 1;
    let homeRep = types.findIndex((type) => type === 'H') + 1;
    if (homeRep === 0) homeRep = types.findIndex((type) => !DELIVERY_TYPES.has(type)) + 1;
    if (homeRep === 0 && count > 0) homeRep = 1;
    r.address(pid, 'home', homeRep);
    r.address(pid, 'delivery', deliveryRep);
  }

  // ORC: the order, its prescriber and the ordering facility (the clinic).
  r.set('clinicOrderId', r.read(orc, 2, 1));
  r.set('prescriberRegistrationNumber', r.read(orc, 12, 1));
  if (orc) {
    const name = [orc.value(12, 6), orc.value(12, 3), orc.value(12, 2)].filter(Boolean).join(' ');
    r.set('prescriberName', r.cell(orc, 'ORC-12', name));
  }
  r.set('clinicCode', r.read(orc, 21, 10) ?? r.read(orc, 21, 3) ?? r.read(msh, 4, 1));
  r.set('clinicName', r.read(orc, 21, 1));
  [
    'clinicAddress1',
    'clinicAddress2',
    'clinicAddress3',
    'clinicAddress4',
    'clinicPostcode',
    'clinicCountryCode',
  ].forEach((column, i) => r.set(column, r.read(orc, 22, i + 1)));
  r.contacts(orc, 23, 'clinicContactNumber', 'clinicContactEmail');

  const placerIds = new Set(orcs.map((segment) => segment.value(2, 1)).filter(Boolean));
  if (placerIds.size > 1) {
    problems.push(
      problem(
        'error',
        ctx.file,
        where,
        'hl7.multipleOrders',
        `The message holds more than one order (ORC-2 ${[...placerIds].join(', ')}); send one order per message.`,
        'prescription.clinicOrderId',
      ),
    );
    reported.add('prescription.clinicOrderId');
  }

  // Items: one per RXE (RDE^O11), else per RXO (OMP^O09, ORM^O01).
  const itemName = message.first('RXE') ? 'RXE' : 'RXO';
  const spec =
    itemName === 'RXE'
      ? { code: 2, dosage: 7, quantity: 10, repeats: 12 }
      : { code: 1, dosage: 7, quantity: 11, repeats: 13 };
  const itemSegments = message.all(itemName);
  const items: (Cell | undefined)[][] = [];
  let repeats: Cell | undefined;
  itemSegments.forEach((segment, itemIndex) => {
    const cells = emptyCells();
    const system = segment.value(spec.code, 3).toUpperCase();
    const altSystem = segment.value(spec.code, 6).toUpperCase();
    const base = DMD_SYSTEMS.has(system) || system === '' ? 1 : DMD_SYSTEMS.has(altSystem) ? 4 : 0;
    const dmdPath = `prescribedItems.${itemIndex}.dmdCode`;
    if (base === 0) {
      reported.add(dmdPath);
      problems.push(
        problem(
          'error',
          ctx.file,
          where,
          'hl7.codingSystem',
          `Item ${itemIndex + 1} (${pathLabel(itemName, spec.code, 3)}) is coded in '${system}', not DMD or SCT, so it has no dm+d code.`,
          dmdPath,
        ),
      );
      // The text still tells the admin which product was meant.
      r.put(cells, 'medication', r.read(segment, spec.code, 2));
    } else {
      if (system === '' && r.read(segment, spec.code, 1)) {
        problems.push(
          problem(
            'warning',
            ctx.file,
            where,
            'hl7.codingSystemMissing',
            `Item ${itemIndex + 1} (${pathLabel(itemName, spec.code, 3)}) names no coding system; its code was read as a dm+d code.`,
            dmdPath,
          ),
        );
      }
      r.put(cells, 'dmdCode', r.read(segment, spec.code, base));
      r.put(cells, 'medication', r.read(segment, spec.code, base + 1));
    }
    r.put(cells, 'dosageInstructions', r.read(segment, spec.dosage, 2) ?? r.read(segment, spec.dosage, 1));
    r.put(cells, 'quantity', r.read(segment, spec.quantity, 1));
    const itemRepeats = r.read(segment, spec.repeats, 1);
    if (itemRepeats && repeats && itemRepeats.value !== repeats.value) {
      reported.add('prescription.repeatsAllowed');
      problems.push(
        problem(
          'error',
          ctx.file,
          where,
          'order.rowsDisagree',
          `Items disagree on repeats allowed (${repeats.provenance.kind === 'hl7' ? repeats.provenance.path : ''} '${repeats.value}' on item 1, '${itemRepeats.value}' on item ${itemIndex + 1}); a create-with-clinic order has one value for all items.`,
          'prescription.repeatsAllowed',
        ),
      );
    }
    repeats ??= itemRepeats;
    items.push(cells);
  });
  r.set('repeatsAllowed', repeats);

  applyOverrides(message, ctx, order, items, itemSegments);
  return {
    cells: { order: cellSet(order), items: items.map(cellSet) },
    orderControl: orc?.value(1, 1).toUpperCase() ?? '',
    problems,
    reported,
  };
}

/** Profile overrides: item fields read from the item's own segment, or the next one of that name after it. */
function applyOverrides(
  message: Hl7Message,
  ctx: Hl7MapContext,
  order: (Cell | undefined)[],
  items: (Cell | undefined)[][],
  itemSegments: Hl7Segment[],
): void {
  for (const [column, pathText] of Object.entries(ctx.overrides ?? {})) {
    const field = fieldByColumn(column);
    const path = parseHl7Path(pathText);
    if (!field || !path) continue; // reported once per file by checkHl7Overrides
    const index = fieldIndex(column)!;
    const readAt = (segment: Hl7Segment | undefined): Cell | undefined => {
      const value = segment?.value(path.field, path.component, path.subcomponent, path.repetition) ?? '';
      return segment && value !== ''
        ? {
            value,
            provenance: {
              kind: 'hl7',
              file: ctx.file,
              message: ctx.messageIndex,
              path: pathLabel(path.segment, path.field, path.component, path.repetition, path.subcomponent),
              segment: segment.raw,
            },
          }
        : undefined;
    };
    if (field.level === 'order') {
      order[index] = readAt(message.first(path.segment));
      continue;
    }
    itemSegments.forEach((itemSegment, i) => {
      const segment =
        itemSegment.name === path.segment
          ? itemSegment
          : message.segments
              .slice(itemSegment.position + 1, itemSegments[i + 1]?.position ?? message.segments.length)
              .find((s) => s.name === path.segment);
      items[i]![index] = readAt(segment);
    });
  }
}

/** Problems in a profile's HL7 overrides, reported once per file. */
export function checkHl7Overrides(overrides: Record<string, string> | undefined, file: string): Problem[] {
  return Object.entries(overrides ?? {}).flatMap(([column, path]) => {
    if (!fieldByColumn(column)) {
      return [
        problem(
          'warning',
          file,
          {},
          'profile.unknownField',
          `The HL7 field map names "${column}", which is not a template column; it was ignored.`,
        ),
      ];
    }
    if (!parseHl7Path(path)) {
      return [
        problem(
          'warning',
          file,
          {},
          'profile.badHl7Path',
          `The HL7 field map gives "${path}" for ${column}; write a path such as RXE-2.1 or PID-11[2].5. It was ignored.`,
        ),
      ];
    }
    return [];
  });
}
