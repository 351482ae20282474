import { FIELDS, describePath, fieldByColumn, fieldIndex, itemPath } from '../model/field-catalogue.js';
import type { Hl7Delimiters, Hl7Message, Hl7Segment } from '../model/hl7-adapter.js';
import { cellSet, emptyCells, type Cell, type OrderCells } from './order-builder.js';
import { problem, quote } from './problems.js';
import type { Problem } from '../model/imported-order.js';
import { messageDay, nameCandidates } from '../model/hl7-patient-name.js';
import type { UnusualSpaces } from './unusual-spaces.js';
import { otherOrderKind, segmentsHeld } from './hl7-other-orders.js';
import { DOSAGE_NUMBER_ONLY, registrationNumberReason } from './uk-rules.js';
import { itemTiming } from './hl7-timing.js';
import { hl7LineBreakProblems } from './hl7-line-breaks.js';
import { isPlacerGroup, placerNumbers, type PlacerNumbers } from './hl7-placer-group.js';

/**
 * The default HL7 v2.5 field map (documented as a table in README.md), and profile overrides of it. Values that
 * need a choice between repetitions (home vs mailing address, phone vs email) or a fallback (clinic code from
 * ORC-21 or MSH-4) are read by small functions here; an override is a plain path such as `ZPY-1` or `RXE-28`.
 *
 * HL7 lets any field repeat (`~`), so every field of the map says what it does with repetitions, and none is
 * dropped without a problem: a field that holds one value (`one`) takes the one its repetitions give, and differing
 * repetitions are an error on the field (`hl7.repeated`); a field that collects them (`join`) joins them all; a field
 * read from one repetition picked by its type codes (`chosen`: an address by its type, a phone by its use) warns when
 * two of the kind it picks differ (`hl7.repeatChoice`), and says what it picks in the table.
 */

// The message types read as orders (RDE^O01 too: HL7 v2.3's RDE^O11) live with the reasons others are refused.
export { ACCEPTED_MESSAGE_TYPES } from './hl7-message-types.js';

/** What each field of the map does with repetitions: the words of the README table. */
export const REPEATS = {
  one: 'one value: repetitions that differ are an error (`hl7.repeated`)',
  joinDosage: 'all, joined with "; " (a space after one ending in . ; : , ! or ?)',
} as const;

export interface Hl7MapEntry {
  column: string;
  source: string;
  repetitions: string;
}

/** For the README and the UI: where each field comes from by default, and what it does with repetitions. */
export const DEFAULT_HL7_MAP: readonly Hl7MapEntry[] = [
  {
    column: 'surname, firstName, title',
    source: 'PID-5.1 (family name), PID-5.2 (given name), PID-5.5 (prefix)',
    repetitions:
      'chosen: the legal name (XPN-7 `L`), else one of type `D`, `U` or none, else the first that is not `BAD`, leaving out a name out of date on the day of MSH-7 (XPN-13 expiry before it, XPN-12 start after it) while another is current; all three from that one',
  },
  { column: 'dateOfBirth', source: 'PID-7 (YYYYMMDD...)', repetitions: REPEATS.one },
  {
    column: 'gender',
    source:
      'PID-8, HL7 table 0001: M, F, O, U as Male, Female, Other, Unknown; A (ambiguous) as Other and N (not applicable) as Unknown, with a warning; numeric 1, 2, 0, 9 too, with a warning',
    repetitions: REPEATS.one,
  },
  {
    column: 'telephone',
    source:
      'PID-13 phone: XTN-1 as written, else XTN-12, else +XTN-5 (country) XTN-6 (area) XTN-7 (number); XTN-8 (extension) left out with a warning',
    repetitions:
      'chosen by XTN-2 use and XTN-3 equipment: a mobile (CP), then PRN, then ORN or none, then WPN, then the rest; EMR and text phones last; never a fax, modem or beeper (FX, MD, BP, BPN)',
  },
  {
    column: 'email',
    source: 'PID-13 email: XTN-4, else an XTN-1 with an @',
    repetitions: 'chosen: use NET or type Internet first, then any other with an address',
  },
  {
    column: 'homeAddress1 … homeCountryCode',
    source: 'PID-11 home repetition: XAD-1, 2, 3, 4, 5, 6',
    repetitions:
      'chosen by XAD-7 type: H, then P, L or RH, then none, then C, then M or SH, then unknown types; never BA (bad address), B, O, BI, BDL, BR, N, F, V or TM; one with no street, town or postcode (only a country) only where none has one',
  },
  {
    column: 'deliveryAddress1 … deliveryCountryCode',
    source: 'PID-11 delivery repetition; none: the home address',
    repetitions: 'chosen by XAD-7 type: SH (shipping), then M (mailing); never BA',
  },
  {
    column: 'clinicOrderId',
    source:
      'ORC-2.1 (placer order number); ORC-4.1 (placer group number) when the items each have an ORC-2 of their own under one ORC-4',
    repetitions: REPEATS.one,
  },
  {
    column: 'prescriberRegistrationNumber',
    source:
      'ORC-12.1 (ordering provider id); an NHS consultant code (C and the GMC number) as its GMC number, with a warning',
    repetitions:
      'one value, but of several identifiers (XCN-9/13 naming each) the one registration number, with a warning; two that differ are an error (`hl7.repeated`)',
  },
  {
    column: 'prescriberName',
    source: 'ORC-12: prefix (6), given (3), family (2), joined by spaces',
    repetitions: REPEATS.one,
  },
  {
    column: 'clinicCode',
    source: 'ORC-21.10 (organisation identifier), else ORC-21.3, else MSH-4.1',
    repetitions: REPEATS.one,
  },
  { column: 'clinicName', source: 'ORC-21.1', repetitions: REPEATS.one },
  {
    column: 'clinicAddress1 … clinicAddress4',
    source: 'ORC-22.1 … ORC-22.4',
    repetitions: 'chosen by XAD-7 type: B or O (the firm, an office), then none, then M, then any other; never BA',
  },
  { column: 'clinicPostcode, clinicCountryCode', source: 'ORC-22.5, ORC-22.6', repetitions: 'as ORC-22.1' },
  {
    column: 'clinicContactNumber, clinicContactEmail',
    source: 'ORC-23, phone and email repetitions as PID-13',
    repetitions: 'chosen: as PID-13, but work numbers (WPN) first',
  },
  {
    column: 'dmdCode, medication',
    source:
      'RXE-2.1 and RXE-2.2 when RXE-2.3 is dm+d or SNOMED CT (DMD, dm+d, SCT, SNOMED, SNOMED CT, http://snomed.info/sct, its OID) or empty, else RXE-2.4/2.5 when RXE-2.6 is, else RXE-2.10/2.11 when RXE-2.12 is; a triplet with no code gives way to a dm+d one that has one, and one with no text takes RXE-2.2; RXO-1 for OMP/ORM',
    repetitions: REPEATS.one,
  },
  {
    column: 'dosageInstructions',
    source:
      'RXE-7, each repetition its text (.2), else its code (.1), a one-word code with an `hl7.dosageCode` warning; RXO-7',
    repetitions: REPEATS.joinDosage,
  },
  { column: 'quantity', source: 'RXE-10; RXO-11', repetitions: REPEATS.one },
  {
    column: 'repeatsAllowed',
    source: 'RXE-12; RXO-13 (the same on every item: v1 has one value per order)',
    repetitions: REPEATS.one,
  },
  {
    column: 'paymentType, courierCode, currencyCode and the rest',
    source: 'not in HL7: profile constants, or an hl7FieldMap entry such as courierCode → ZDL-1',
    repetitions: 'an override `ZDL-1`: one value; `ZDL-1[2]`: that repetition; `ZDL-1[*]`: all, joined with "; "',
  },
];

/**
 * The default value maps for HL7 tables (profile value maps override them). None at present: PID-8's table 0001 is
 * read after the profile's maps by sex-codes.ts, for CSV files too, so that a code the environment has no gender for
 * is refused naming the code and not the value a default map made of it.
 */
export const HL7_VALUE_MAPS: Record<string, Record<string, string>> = {};

export interface Hl7Extraction {
  cells: OrderCells;
  orderControl: string;
  /** The placer order and group numbers of the message's ORCs (a cancel of a placer group is checked by them). */
  placers: PlacerNumbers;
  problems: Problem[];
  /** Paths whose problem was reported here (e.g. a wrong coding system), skipped by validation. */
  reported: Set<string>;
}

export interface ParsedPath {
  segment: string;
  field: number;
  /** 1-based; `all` for `[*]` (every repetition, joined). */
  repetition: number | 'all';
  /** Whether the path names its repetition (`PID-11[2]`, `ZPY-1[*]`): then no other is looked at. */
  repetitionGiven: boolean;
  component: number;
  subcomponent: number;
}

const PATH = /^([A-Z][A-Z0-9]{2})-(\d{1,3})(?:\[(\d{1,3}|\*)\])?(?:\.(\d{1,3}))?(?:\.(\d{1,3}))?$/;

export function parseHl7Path(text: string): ParsedPath | undefined {
  const m = PATH.exec(text.trim());
  if (!m || Number(m[2]) < 1 || m[3] === '0') return undefined;
  return {
    segment: m[1]!,
    field: Number(m[2]),
    repetition: m[3] === '*' ? 'all' : Number(m[3] ?? 1),
    repetitionGiven: m[3] !== undefined,
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

/** An NHS consultant code: C and a 7-digit GMC number (NHS Data Dictionary, CONSULTANT CODE). */
const CONSULTANT_CODE = /^C\d{7}$/i;
const CONSULTANT_PREFIX = /^C/i;

/** Field index by template column, for the columns this map fills. */
const INDEX_OF = new Map(FIELDS.map((field, index) => [field.column, index]));
const PATH_OF = new Map(FIELDS.map((field) => [field.column, field.path]));
const ADDRESS_SUFFIXES = ['Address1', 'Address2', 'City', 'County', 'PostCode', 'CountryCode'];
const ADDRESS_COLUMNS = {
  home: ADDRESS_SUFFIXES.map((suffix) => `home${suffix}`),
  delivery: ADDRESS_SUFFIXES.map((suffix) => `delivery${suffix}`),
};
const ADDRESS_REQUIRED = {
  home: ['homeAddress.address1', 'homeAddress.city', 'homeAddress.postCode', 'homeAddress.countryCode'],
  delivery: [
    'deliveryAddress.address1',
    'deliveryAddress.city',
    'deliveryAddress.postCode',
    'deliveryAddress.countryCode',
  ],
};
/** ORC-22 address types by preference: the firm's or office address, then none, then mailing, then any other. */
const CLINIC_ADDRESS_RANK: Record<string, number> = { B: 1, O: 1, '': 2, M: 3 };
const OTHER_CLINIC_ADDRESS_RANK = 4;
const CLINIC_ADDRESS_COLUMNS = [
  'clinicAddress1',
  'clinicAddress2',
  'clinicAddress3',
  'clinicAddress4',
  'clinicPostcode',
  'clinicCountryCode',
];

/** XTN-2 use codes (HL7 table 0201) and XTN-3 equipment types (table 0202) of an email address. */
const EMAIL_USES = new Set(['NET', 'X.400']);
const EMAIL_TYPES = new Set(['INTERNET', 'X.400']);
/** Never a phone to call: a beeper (use BPN, type BP), a fax, a modem. */
const NOT_PHONE_USES = new Set(['BPN']);
const NOT_PHONE_TYPES = new Set(['FX', 'MD', 'BP']);

/**
 * The phone a field wants (lower is better; XTN-2 use, XTN-3 equipment). A patient's (PID-13): a mobile (CP) at
 * home or of no stated use, then the primary residence number, another residence or none, work, vacation home or
 * answering service, then emergency numbers and text phones. A clinic's (ORC-23): work numbers first.
 */
function phoneRank(use: string, type: string, work: boolean): number {
  if (use === 'EMR' || type === 'TDD' || type === 'TTY') return 9;
  if (work) return use === 'WPN' ? (type === 'CP' ? 2 : 1) : use === 'PRN' || use === '' ? 3 : 4;
  if (type === 'CP' && (use === 'PRN' || use === 'ORN' || use === '')) return 1;
  if (use === 'PRN') return 2;
  if (use === 'ORN' || use === '') return 3;
  if (use === 'WPN') return 4;
  return 5;
}

/**
 * PID-11 address types (XAD-7, HL7 table 0190) by preference. Home: H, then permanent (P), legal (L) or registry
 * home (RH), then no type, then current or temporary (C), then a mailing or shipping address (better than none),
 * then types this table does not know. Delivery: shipping (SH), then mailing (M). Never: a bad address (BA), nor
 * one that is not where the patient lives (business B, office O, billing BI, birth places BDL/BR/N, country of
 * origin F, vacation V, tube address TM).
 */
const HOME_RANK: Record<string, number> = { H: 1, P: 2, L: 2, RH: 2, '': 3, C: 4, M: 5, SH: 5 };
const NEVER_HOME = new Set(['BA', 'B', 'O', 'BI', 'BDL', 'BR', 'N', 'F', 'V', 'TM']);
const OTHER_HOME_RANK = 6;
const DELIVERY_RANK: Record<string, number> = { SH: 1, M: 2 };
const ADDRESS_TYPE_NAMES: Record<string, string> = {
  BA: 'bad address',
  B: 'business',
  O: 'office',
  BI: 'billing',
  BDL: 'birth delivery location',
  BR: 'residence at birth',
  N: 'birth (nee)',
  F: 'country of origin',
  V: 'vacation',
  TM: 'tube address',
};

/**
 * Coding systems that mean dm+d (a SNOMED CT UK drug extension concept id), however senders write them: SCT,
 * SNOMED, SNOMED CT, SNOMED-CT, SNOMEDCT, DMD, dm+d, DM&D, the FHIR URI http://snomed.info/sct (with or without a
 * module) and the OID 2.16.840.1.113883.6.96. Compared upper-cased, without spaces, dashes or underscores.
 */
const DMD_SYSTEMS = new Set(['SCT', 'SNOMED', 'SNOMEDCT', 'SNOMEDCTUK', 'DMD', 'DM+D', 'DM&D', 'NHSDMD', 'NHSDM+D']);
export function isDmdSystem(system: string): boolean {
  const key = system.toUpperCase().replace(/[\s\-_]/g, '');
  if (DMD_SYSTEMS.has(key)) return true;
  if (key.startsWith('HTTP://SNOMED.INFO/SCT') || key.startsWith('HTTPS://SNOMED.INFO/SCT')) return true;
  return key === '2.16.840.1.113883.6.96' || key === 'URN:OID:2.16.840.1.113883.6.96';
}
/** `a, b, c`, or the first `max` and how many more: a message of thousands of ORCs named each in one problem. */
export function listSome(values: readonly string[], max = 10): string {
  if (values.length > max) return `${values.slice(0, max).join(', ')} and ${values.length - max} more`;
  return values.join(', ');
}

/** Dosage texts joined so they read as one instruction: `one daily; with food`, `Take one. With food.`. */
export function joinDosage(parts: readonly string[]): string {
  let out = '';
  // What `out` ends in, kept as it grows: reading its end (a regex, or even charAt) flattens the string each time,
  // which for a field repeated thousands of times took minutes.
  let last = '';
  for (const part of parts) {
    if (out === '') out = part;
    else out += '.;:,!?'.includes(last) ? ` ${part}` : `; ${part}`;
    last = part === '' ? (out === '' ? '' : ' ') : part.charAt(part.length - 1);
  }
  return out;
}

export interface Hl7MapContext {
  file: string;
  messageIndex: number;
  /** Profile overrides: template column → path. */
  overrides?: Record<string, string>;
  /** Given when the message may hold no-break or zero-width spaces: values are read through it (unusual-spaces.ts). */
  spaces?: UnusualSpaces;
}

/**
 * Components whose subcomponents HL7 defines, the first being the whole value and the rest its parts: the family
 * name (FN: surname & prefix & own surname…) and the street line (SAD: street & street name & dwelling number).
 */
const WITH_PARTS = new Set(['PID-5.1', 'ORC-12.2', 'PID-11.1', 'ORC-22.1']);
/** Of those, the street lines (SAD: street or mailing address & street name & dwelling number). */
const SAD = new Set(['PID-11.1', 'ORC-22.1']);
/** A house number alone: `1`, `12A`, `10-12`. */
const HOUSE_NUMBER = /^\d+[A-Za-z]?(?:\s*[-–]\s*\d+[A-Za-z]?)?$/;
/** An MO denomination: an ISO 4217 code. */
const DENOMINATION = /^[A-Za-z]{3}$/;

/** XAD components that make a repetition an address to choose: street, town, postcode; or, where none has them, any. */
const STREET_TOWN_POSTCODE: readonly number[] = [1, 3, 5];
const ANY_ADDRESS_PART: readonly number[] = [1, 2, 3, 4, 5, 6];

/** Whether PID-11 repetition `rep` has a value in one of `components`. */
function addressFilled(pid: Hl7Segment, rep: number, components: readonly number[]): boolean {
  for (const component of components) if (pid.value(11, component, 1, rep) !== '') return true;
  return false;
}

/** Reads a message's cells into `order` (methods rather than closures: nothing allocated per message for them). */
class CellReader {
  /** Components already reported for an unescaped subcomponent separator or a street line in parts (once each). */
  private unescapedSeen: Set<string> | undefined;
  /** Reading an amount: its MO denomination is read with it (see `amount`). */
  amounts = false;

  constructor(
    private readonly ctx: Hl7MapContext,
    private readonly order: (Cell | undefined)[],
    readonly problems: Problem[],
    private readonly delimiters: Hl7Delimiters,
  ) {}

  /** A problem with this message, on `bodyPath` (the order field it concerns) when there is one. */
  say(severity: Problem['severity'], code: string, text: string, bodyPath?: string): void {
    this.problems.push(problem(severity, this.ctx.file, { message: this.ctx.messageIndex }, code, text, bodyPath));
  }

  cell(segment: Hl7Segment, path: string, value: string): Cell | undefined {
    const { file, messageIndex, spaces } = this.ctx;
    if (spaces && value !== '') value = spaces.read(value, { message: messageIndex }).trim();
    if (value === '') return undefined;
    return { value, provenance: { kind: 'hl7', file, message: messageIndex, path, segment: segment.raw } };
  }

  /** A value by position; `bodyPath` (the field it fills) names the field in a warning about it. */
  read(
    segment: Hl7Segment | undefined,
    field: number,
    component = 1,
    repetition = 1,
    sub = 1,
    bodyPath?: string,
  ): Cell | undefined {
    if (!segment) return undefined;
    if (this.amounts && sub === 1) {
      const money = this.amount(segment, field, component, repetition);
      if (money) return money;
    }
    let value = segment.value(field, component, sub, repetition);
    if (sub === 1 && segment.hasSubcomponents)
      value = this.withSubcomponents(segment, field, component, repetition, value, bodyPath);
    return value === ''
      ? undefined
      : this.cell(segment, pathLabel(segment.name, field, component, repetition, sub), value);
  }

  /**
   * An amount written as HL7 money (MO: quantity ^ denomination, ISO 4217), in a field (`12.50^GBP`) or as the
   * first component of a composite price (CP: `12.50&GBP^UP`): the quantity is read with its currency
   * (`12.50 GBP`), which the order builder checks against the order's currency (amounts.ts). Reading the quantity
   * alone took 12.50 US dollars for pounds without a word. Undefined when there is no denomination there.
   */
  private amount(segment: Hl7Segment, field: number, component: number, repetition: number): Cell | undefined {
    const parts = segment.hasSubcomponents ? segment.subcomponents(field, component, repetition) : [];
    if (parts.length === 2 && DENOMINATION.test(parts[1]!.trim()) && parts[0]!.trim() !== '') {
      const label = pathLabel(segment.name, field, component, repetition);
      return this.cell(segment, label, `${parts[0]!.trim()} ${parts[1]!.trim()}`);
    }
    if (component !== 1) return undefined;
    const quantity = segment.value(field, 1, 1, repetition).trim();
    const denomination = segment.value(field, 2, 1, repetition).trim();
    if (quantity === '' || !DENOMINATION.test(denomination)) return undefined;
    return this.cell(segment, pathLabel(segment.name, field, undefined, repetition), `${quantity} ${denomination}`);
  }

  /**
   * A component read as one value that holds the subcomponent separator. Senders that build messages by hand or
   * from a spreadsheet leave "&" unescaped ("morning & evening"), and reading the first subcomponent cut the text
   * there without a word. Where the component has no subcomponents, the separator is text: the whole component is
   * read. Where it has (FN, SAD), the first is the standard's value; later ones that are not parts of it were left
   * out. Either way a warning names the field.
   */
  private withSubcomponents(
    segment: Hl7Segment,
    field: number,
    component: number,
    repetition: number,
    first: string,
    bodyPath: string | undefined,
  ): string {
    const parts = segment.subcomponents(field, component, repetition);
    if (parts.length <= 1) return first;
    const rest = parts
      .slice(1)
      .map((part) => part.trim())
      .filter(Boolean);
    if (rest.length === 0) return first;
    const label = pathLabel(segment.name, field, component, repetition);
    const { subcomponent: separator, escape } = this.delimiters;
    const escaped = `${escape}T${escape}`;
    if (WITH_PARTS.has(`${segment.name}-${field}.${component}`)) {
      const whole = first.toLowerCase();
      const notParts = rest.filter((part) => !whole.includes(part.toLowerCase()));
      const composed =
        notParts.length > 0 && SAD.has(`${segment.name}-${field}.${component}`)
          ? this.streetFromParts(parts, label, bodyPath)
          : undefined;
      if (composed !== undefined) return composed;
      if (notParts.length > 0) {
        this.unescaped(
          label,
          bodyPath,
          `${label} has subcomponents after ${quote(first)} that are not parts of it (${notParts.map(quote).join(', ')}); read as the standard says, ${first ? `${quote(first)} was used and ` : ''}they were left out. If the sender meant "${separator}" as text, it must be escaped as ${escaped}.`,
        );
      }
      return first;
    }
    const text = parts.join(separator).trim();
    this.unescaped(
      label,
      bodyPath,
      `${label} holds "${separator}", HL7's subcomponent separator, not escaped as ${escaped}; it has no subcomponents, so it was read as text: ${quote(text)}. Check the value, and ask the sender to escape "${separator}".`,
    );
    return text;
  }

  /**
   * A street line (SAD, PID-11.1 and ORC-22.1) given in its parts: SAD-2 the street name, SAD-3 the dwelling
   * number, SAD-1 empty, only the number (`1000&Hospital Lane`) or, with SAD-3, a part of its own (`Flat 2&High
   * Street&1`).
   * Reading SAD-1 alone sent "1000", or nothing, as the patient's address; the line is built from the parts
   * instead, number before street as a UK address writes it, with a warning showing how. Undefined where the
   * component is not of that shape (no street name, more than three parts): read as before.
   */
  private streetFromParts(parts: string[], label: string, bodyPath: string | undefined): string | undefined {
    if (parts.length > 3) return undefined;
    const [line = '', street = '', dwelling = ''] = parts.map((part) => part.trim());
    // `Bull & Bush Lane` (an "&" not escaped) is no street line in parts: without a dwelling number, SAD-1 must be
    // empty or a house number to read the rest as its street.
    if (street === '' || (dwelling === '' && line !== '' && !HOUSE_NUMBER.test(line))) return undefined;
    const number = dwelling || (HOUSE_NUMBER.test(line) ? line : '');
    const own = line !== '' && line !== number && !line.toLowerCase().includes(street.toLowerCase()) ? line : '';
    const built = [own, [number, street].filter(Boolean).join(' ')].filter(Boolean).join(', ');
    // Home and delivery may read one repetition: said once.
    this.unescapedSeen ??= new Set();
    if (this.unescapedSeen.has(`parts ${label}`)) return built;
    this.unescapedSeen.add(`parts ${label}`);
    const given = [
      ...(line ? [`street or mailing address ${quote(line)}`] : []),
      `street name ${quote(street)}`,
      ...(dwelling ? [`dwelling number ${quote(dwelling)}`] : []),
    ];
    this.say(
      'warning',
      'hl7.addressFromParts',
      `${label} gives the street line in parts (${given.join(', ')}): read as ${quote(built)}. Check it is the address.`,
      bodyPath,
    );
    return built;
  }

  private unescaped(label: string, bodyPath: string | undefined, text: string): void {
    this.unescapedSeen ??= new Set();
    if (this.unescapedSeen.has(label)) return;
    this.unescapedSeen.add(label);
    this.say('warning', 'hl7.unescapedSeparator', text, bodyPath);
  }

  /**
   * A field that holds one value: the one its repetitions give (`~x` is x); repetitions that differ are an error on
   * `bodyPath`, the first being used so the preview shows it.
   */
  one(segment: Hl7Segment | undefined, field: number, component: number, bodyPath: string, sub = 1): Cell | undefined {
    if (!segment) return undefined;
    const count = segment.repetitions(field);
    if (count <= 1) return this.read(segment, field, component, 1, sub, bodyPath);
    let chosen: Cell | undefined;
    let differing: Cell[] | undefined;
    for (let rep = 1; rep <= count; rep += 1) {
      const cell = this.read(segment, field, component, rep, sub, bodyPath);
      if (!cell) continue;
      if (!chosen) chosen = cell;
      else if (cell.value !== chosen.value && !differing?.some((d) => d.value === cell.value))
        (differing ??= []).push(cell);
    }
    if (chosen && differing) {
      this.repeated(pathLabel(segment.name, field, component, 1, sub), bodyPath, [chosen, ...differing]);
    }
    return chosen;
  }

  /**
   * ORC-12.1, the prescriber's registration number. An NHS consultant code (`C4598938`: the letter C and the GMC
   * number, the NHS Data Dictionary's form, as Cerner Millennium sends it) is read as its GMC number, with a warning.
   * One prescriber with several identifiers (a consultant code and a local doctor number, XCN-9/XCN-13 naming each)
   * is read from the one that is a registration number, when exactly one number is, with a warning naming the
   * others; otherwise differing repetitions are `hl7.repeated`, as for any one-value field.
   */
  prescriberId(orc: Hl7Segment | undefined): Cell | undefined {
    const path = 'prescribingDoctor.registrationNumber';
    if (!orc) return undefined;
    const count = orc.repetitions(12);
    const cells: { cell: Cell; rep: number }[] = [];
    for (let rep = 1; rep <= count; rep += 1) {
      const cell = this.read(orc, 12, 1, rep, 1, path);
      if (cell) cells.push({ cell, rep });
    }
    if (new Set(cells.map(({ cell }) => cell.value)).size <= 1) return this.consultantCode(cells[0]?.cell, path);
    const registrations = cells.filter(
      ({ cell }) => CONSULTANT_CODE.test(cell.value) || registrationNumberReason(cell.value) === undefined,
    );
    const numbers = new Set(registrations.map(({ cell }) => cell.value.replace(CONSULTANT_PREFIX, '')));
    if (numbers.size !== 1) return this.one(orc, 12, 1, path);
    const chosen = registrations[0]!;
    const named = (rep: number) => {
      const kind = orc.value(12, 9, 1, rep) || orc.value(12, 13, 1, rep);
      return `${quote(orc.value(12, 1, 1, rep))}${kind ? ` (${kind})` : ''}`;
    };
    this.say(
      'warning',
      'hl7.prescriberIdChosen',
      `ORC-12 gives the prescriber ${cells.length} identifiers, ${cells.map(({ rep }) => named(rep)).join(', ')}; the registration number ${named(chosen.rep)} was used.`,
      path,
    );
    return this.consultantCode(chosen.cell, path);
  }

  private consultantCode(cell: Cell | undefined, path: string): Cell | undefined {
    if (!cell || !CONSULTANT_CODE.test(cell.value)) return cell;
    const gmc = cell.value.replace(CONSULTANT_PREFIX, '');
    this.say(
      'warning',
      'hl7.consultantCode',
      `${cell.provenance.kind === 'hl7' ? cell.provenance.path : 'ORC-12.1'} ${quote(cell.value)} is an NHS consultant code, the letter C and the GMC number, so the GMC number ${gmc} was read.`,
      path,
    );
    return { ...cell, value: gmc };
  }

  /** The same rule for a value made of several components (a name): repetitions compared as made. */
  oneMade(
    segment: Hl7Segment | undefined,
    field: number,
    bodyPath: string,
    make: (segment: Hl7Segment, rep: number) => string,
  ): Cell | undefined {
    if (!segment) return undefined;
    const count = Math.max(1, segment.repetitions(field));
    let chosen: Cell | undefined;
    let differing: Cell[] | undefined;
    for (let rep = 1; rep <= count; rep += 1) {
      const cell = this.cell(
        segment,
        rep > 1 ? `${pathLabel(segment.name, field)}[${rep}]` : pathLabel(segment.name, field),
        make(segment, rep),
      );
      if (!cell) continue;
      if (!chosen) chosen = cell;
      else if (cell.value !== chosen.value && !differing?.some((d) => d.value === cell.value))
        (differing ??= []).push(cell);
    }
    if (chosen && differing) this.repeated(pathLabel(segment.name, field), bodyPath, [chosen, ...differing]);
    return chosen;
  }

  /** Every repetition's value (by `pick`), joined; its origin is the whole field when more than one gave a value. */
  joined(
    segment: Hl7Segment | undefined,
    field: number,
    pick: (rep: number) => Cell | undefined,
    join: (parts: readonly string[]) => string,
  ): Cell | undefined {
    if (!segment) return undefined;
    const count = segment.repetitions(field);
    if (count <= 1) return pick(1);
    const cells: Cell[] = [];
    for (let rep = 1; rep <= count; rep += 1) {
      const cell = pick(rep);
      if (cell) cells.push(cell);
    }
    if (cells.length <= 1) return cells[0];
    return this.cell(segment, pathLabel(segment.name, field), join(cells.map((cell) => cell.value)));
  }

  private repeated(label: string, bodyPath: string, cells: Cell[]): void {
    const values = cells.slice(0, 4).map((cell) => quote(cell.value));
    const listed = `${values.slice(0, -1).join(', ')} and ${values.at(-1)}${cells.length > 4 ? ' and more' : ''}`;
    this.say(
      'error',
      'hl7.repeated',
      `${label} repeats with different values (${listed}), but ${describePath(bodyPath)} holds one; the first was used: check which is meant.`,
      bodyPath,
    );
  }

  /** Two repetitions of the kind a chosen field picks, and they differ: the first is used, with a warning. */
  tie(label: string, what: string, bodyPath: string, reps: readonly number[]): void {
    // A few named, as `repeated` does: a field repeated thousands of times made a problem of thousands of numbers.
    const listed =
      reps.length > 6 ? listSome(reps.map(String), 5) : `${reps.slice(0, -1).join(', ')} and ${reps.at(-1)}`;
    this.say(
      'warning',
      'hl7.repeatChoice',
      `${label} has ${reps.length} ${what} that differ (repetitions ${listed}); repetition ${reps[0]} was used.`,
      bodyPath,
    );
  }

  set(column: string, value: Cell | undefined): void {
    if (value) this.order[INDEX_OF.get(column)!] = value;
  }

  put(cells: (Cell | undefined)[], column: string, value: Cell | undefined): void {
    if (value) cells[INDEX_OF.get(column)!] = value;
  }

  /** PID-5: surname, first name and title from one repetition, chosen by name type (and current on `day`). */
  name(pid: Hl7Segment | undefined, day: string | undefined): void {
    if (!pid) return;
    const candidates = nameCandidates(pid, day);
    const rep = candidates[0] ?? 1;
    if (candidates.length > 1) {
      const text = (r: number) => [1, 2, 5].map((c) => pid.value(5, c, 1, r)).join('\u0000');
      const differing = candidates.slice(1).filter((r) => text(r) !== text(rep));
      if (differing.length > 0) this.tie('PID-5', 'names of the kind chosen', 'customer.surname', [rep, ...differing]);
    }
    this.set('surname', this.read(pid, 5, 1, rep, 1, 'customer.surname'));
    this.set('firstName', this.read(pid, 5, 2, rep, 1, 'customer.firstName'));
    this.set('title', this.read(pid, 5, 5, rep, 1, 'customer.title'));
  }

  /**
   * PID-13 / ORC-23: the phone the field wants most (phoneRank; never a fax, beeper or modem) and the email (use
   * NET or type Internet first). A phone is XTN-1 as written, else XTN-12, else made of XTN-5 (country), XTN-6
   * (area) and XTN-7 (local number); an extension (XTN-8) is not dialled, so it is left out with a warning.
   */
  contacts(
    segment: Hl7Segment | undefined,
    field: number,
    phoneColumn: string,
    emailColumn: string,
    work: boolean,
  ): void {
    if (!segment) return;
    const count = segment.repetitions(field);
    if (count === 0) return;
    let phone: { cell: Cell; rank: number; rep: number; extension: string } | undefined;
    let email: { cell: Cell; rank: number; rep: number } | undefined;
    let phoneTies: number[] | undefined;
    let emailTies: number[] | undefined;
    for (let rep = 1; rep <= count; rep += 1) {
      const use = segment.value(field, 2, 1, rep).toUpperCase();
      const type = segment.value(field, 3, 1, rep).toUpperCase();
      const address = this.read(segment, field, 4, rep, 1, PATH_OF.get(emailColumn));
      const first = this.read(segment, field, 1, rep, 1, PATH_OF.get(phoneColumn));
      const atFirst = first?.value.includes('@') ? first : undefined;
      if (EMAIL_USES.has(use) || EMAIL_TYPES.has(type) || address || atFirst) {
        const cell = address ?? atFirst;
        if (!cell) continue;
        const rank = use === 'NET' || type === 'INTERNET' ? 1 : 2;
        if (!email || rank < email.rank) {
          email = { cell, rank, rep };
          emailTies = undefined;
        } else if (rank === email.rank && cell.value !== email.cell.value) (emailTies ??= []).push(rep);
        continue;
      }
      if (NOT_PHONE_USES.has(use) || NOT_PHONE_TYPES.has(type)) continue;
      const cell = first ?? this.read(segment, field, 12, rep) ?? this.composedPhone(segment, field, rep);
      if (!cell) continue;
      const rank = phoneRank(use, type, work);
      if (!phone || rank < phone.rank) {
        phone = { cell, rank, rep, extension: segment.value(field, 8, 1, rep) };
        phoneTies = undefined;
      } else if (rank === phone.rank && cell.value !== phone.cell.value) (phoneTies ??= []).push(rep);
    }
    const label = pathLabel(segment.name, field);
    if (phone) {
      this.set(phoneColumn, phone.cell);
      if (phoneTies)
        this.tie(label, 'phone numbers of the kind chosen', PATH_OF.get(phoneColumn)!, [phone.rep, ...phoneTies]);
      if (phone.extension) {
        this.say(
          'warning',
          'hl7.phoneExtension',
          `${label} gives the extension ${quote(phone.extension)} (XTN-8) for ${phone.cell.value}; ${describePath(PATH_OF.get(phoneColumn)!)} holds a number to dial, so the extension was left out.`,
          PATH_OF.get(phoneColumn),
        );
      }
    }
    if (email) {
      this.set(emailColumn, email.cell);
      if (emailTies) this.tie(label, 'email addresses', PATH_OF.get(emailColumn)!, [email.rep, ...emailTies]);
    }
  }

  /** A number given only in parts: `+44 113 4960000` (XTN-5, 6, 7), `0113 4960000` (XTN-6, 7). */
  private composedPhone(segment: Hl7Segment, field: number, rep: number): Cell | undefined {
    const local = segment.value(field, 7, 1, rep);
    if (local === '') return undefined;
    const country = segment.value(field, 5, 1, rep).replace(/^(?:\+|00)/, '');
    const area = segment.value(field, 6, 1, rep);
    // From abroad the area code loses its trunk prefix: +44 113…, not +44 0113….
    const parts = country ? [`+${country}`, area.replace(/^\(?0\)?/, ''), local] : [area, local];
    return this.cell(segment, pathLabel(segment.name, field, undefined, rep), parts.filter(Boolean).join(' '));
  }

  /**
   * PID-11: the home address and the delivery address, each the best repetition by its type (HOME_RANK,
   * DELIVERY_RANK); a bad address (BA) is never either. Addresses but none that can be a home: an error saying
   * which types there were.
   */
  addresses(pid: Hl7Segment | undefined, reported: Set<string>): void {
    if (!pid) return;
    const count = pid.repetitions(11);
    if (count === 0) return;
    const home: number[] = [];
    const delivery: number[] = [];
    let homeRank = Number.POSITIVE_INFINITY;
    let deliveryRank = Number.POSITIVE_INFINITY;
    const types: string[] = [];
    // A repetition with no street, town or postcode is no address to choose while another has one; where none has,
    // what it gives (a country: `^^^^^USA^H`) is read, so no value given is reported missing.
    let parts = STREET_TOWN_POSTCODE;
    let someFilled = false;
    for (let rep = 1; rep <= count && !someFilled; rep += 1) someFilled = addressFilled(pid, rep, parts);
    if (!someFilled) parts = ANY_ADDRESS_PART;
    for (let rep = 1; rep <= count; rep += 1) {
      if (!addressFilled(pid, rep, parts)) continue;
      const type = pid.value(11, 7, 1, rep).toUpperCase();
      types.push(type);
      const h = NEVER_HOME.has(type) ? undefined : (HOME_RANK[type] ?? OTHER_HOME_RANK);
      if (h !== undefined && h <= homeRank) {
        if (h < homeRank) home.length = 0;
        homeRank = h;
        home.push(rep);
      }
      const d = DELIVERY_RANK[type];
      if (d !== undefined && d <= deliveryRank) {
        if (d < deliveryRank) delivery.length = 0;
        deliveryRank = d;
        delivery.push(rep);
      }
    }
    if (home.length === 0 && types.length > 0) {
      const named = [...new Set(types)].map((type) =>
        type ? `${type} (${ADDRESS_TYPE_NAMES[type] ?? 'unknown'})` : 'none',
      );
      // One problem says why: the home fields (and the delivery fields that would copy them) are not each required.
      for (const path of ADDRESS_REQUIRED.home) reported.add(path);
      if (delivery.length === 0) for (const path of ADDRESS_REQUIRED.delivery) reported.add(path);
      this.say(
        'error',
        'hl7.noHomeAddress',
        `PID-11 holds ${types.length === 1 ? 'an address' : `${types.length} addresses`} of type ${named.join(', ')}, none of which is where the patient lives (a bad address, BA, is never used); the home address is missing.`,
        'homeAddress.address1',
      );
    }
    this.address(pid, 'home', home, 'home addresses');
    this.address(pid, 'delivery', delivery, 'delivery addresses');
  }

  /** PID-11 repetition `reps[0]` (none when empty) as the home or delivery address; others that differ, a warning. */
  private address(pid: Hl7Segment, prefix: 'home' | 'delivery', reps: readonly number[], what: string): void {
    this.addressAt(pid, 11, ADDRESS_COLUMNS[prefix], reps, what);
  }

  /** XAD repetition `reps[0]` of `field` into `columns` (XAD-1…6); other repetitions in `reps` that differ: a warning. */
  private addressAt(
    segment: Hl7Segment,
    field: number,
    columns: readonly string[],
    reps: readonly number[],
    what: string,
  ): void {
    const [rep] = reps;
    if (rep === undefined) return;
    if (reps.length > 1) {
      const text = (r: number) => columns.map((_, i) => segment.value(field, i + 1, 1, r)).join('\u0000');
      const differing = reps.slice(1).filter((r) => text(r) !== text(rep));
      if (differing.length > 0) {
        this.tie(pathLabel(segment.name, field), what, PATH_OF.get(columns[0]!)!, [rep, ...differing]);
      }
    }
    for (let i = 0; i < columns.length; i += 1) {
      this.set(columns[i]!, this.read(segment, field, i + 1, rep, 1, PATH_OF.get(columns[i]!)));
    }
  }

  /** ORC-22: the clinic's address, the best repetition by type (CLINIC_ADDRESS_RANK); never a bad address (BA). */
  clinicAddress(orc: Hl7Segment | undefined): void {
    if (!orc) return;
    const count = orc.repetitions(22);
    const best: number[] = [];
    let bestRank = Number.POSITIVE_INFINITY;
    for (let rep = 1; rep <= count; rep += 1) {
      if ([1, 5].every((component) => orc.value(22, component, 1, rep) === '')) continue;
      const type = orc.value(22, 7, 1, rep).toUpperCase();
      if (type === 'BA') continue;
      const rank = CLINIC_ADDRESS_RANK[type] ?? OTHER_CLINIC_ADDRESS_RANK;
      if (rank > bestRank) continue;
      if (rank < bestRank) best.length = 0;
      bestRank = rank;
      best.push(rep);
    }
    this.addressAt(orc, 22, CLINIC_ADDRESS_COLUMNS, best, 'clinic addresses');
  }
}

/** Whether the CE/CWE triplet at component `at` of `field` has a code, in a dm+d coding system. */
function codedInDmd(segment: Hl7Segment, field: number, at: number): boolean {
  return isDmdSystem(segment.value(field, at + 2)) && segment.value(field, at) !== '';
}

/**
 * Segments of an item's group whose notes (the NTEs right after them) are notes on the item: the item itself, its
 * timing, route and components. An NTE after an OBX (or OBR, SPM) comments on that observation, not on the medicine.
 */
const ITEM_NOTE_OWNERS: ReadonlySet<string> = new Set(['RXE', 'RXO', 'TQ1', 'TQ2', 'RXR', 'RXC']);

/** The NTEs with text between the item segment at `from` and the segment at `to`, each owned by the item's group. */
function itemNotes(segments: readonly Hl7Segment[], from: number, to: number): Hl7Segment[] {
  const notes: Hl7Segment[] = [];
  let owner = segments[from]!.name;
  for (let at = from + 1; at < to; at += 1) {
    const segment = segments[at]!;
    if (segment.name !== 'NTE') owner = segment.name;
    else if (ITEM_NOTE_OWNERS.has(owner) && segment.value(3) !== '') notes.push(segment);
  }
  return notes;
}

/** The order's path of an item field. */
const itemField = (itemIndex: number, column: string) => itemPath(INDEX_OF.get(column)!, itemIndex);

export function extractHl7Order(message: Hl7Message, ctx: Hl7MapContext): Hl7Extraction {
  const problems: Problem[] = [];
  const reported = new Set<string>();
  const order = emptyCells();
  const r = new CellReader(ctx, order, problems, message.delimiters);

  const msh = message.first('MSH')!;
  const pid = message.first('PID');
  const orcs = message.all('ORC');
  const orc = orcs[0];

  // Patient: name, birth date, sex.
  r.name(pid, messageDay(msh));
  r.set('dateOfBirth', r.one(pid, 7, 1, 'customer.dateOfBirth'));
  r.set('gender', r.one(pid, 8, 1, 'customer.gender'));

  // PID-13 / ORC-23 repetitions: the phone and the email, chosen by use and equipment.
  r.contacts(pid, 13, 'telephone', 'email', false);

  // PID-11: the home address and a shipping or mailing address, chosen by type; never a bad address.
  r.addresses(pid, reported);

  // ORC: the order, its prescriber and the ordering facility (the clinic). A prescription of several items may give
  // each item a placer order number of its own (ORC-2) under one placer group number (ORC-4, HL7's grouping of
  // orders placed together): that group is then the order.
  // A cancel may name the group alone (ORC-4, no ORC-2): the whole order (group-cancel.ts).
  const placers = placerNumbers(orcs);
  const placerIds = placers.items;
  const grouped = isPlacerGroup(placers);
  const orderControl = orc?.value(1, 1).toUpperCase() ?? '';
  const groupOnly = orderControl === 'CA' && placerIds.length === 0 && placers.group !== '';
  const placer = r.one(orc, grouped || groupOnly ? 4 : 2, 1, 'prescription.clinicOrderId');
  r.set('clinicOrderId', placer);
  // Only the filler's number (ORC-3, the number a pharmacy or dispensing system gave the order): said, not guessed.
  // Neither number: said in the segment's words too, so the sender knows which field to fill.
  const filler = orc?.value(3, 1) ?? '';
  if (orc && !placer && ctx.overrides?.clinicOrderId === undefined) {
    reported.add('prescription.clinicOrderId');
    r.say(
      'error',
      'hl7.placerMissing',
      filler !== ''
        ? `ORC-2 (placer order number, the clinic's order id) is empty; ORC-3 holds ${quote(filler)}, the filler order number another system gave the order, which may not be unique for the clinic. Ask the sender to fill ORC-2, or map the clinic order id to ORC-3 in the profile if that number is the clinic's.`
        : "ORC-2 (placer order number, the clinic's order id) and ORC-3 (filler order number) are both empty, so the order has no number to be sent or cancelled by. Ask the sender to fill ORC-2 with the clinic's order id, or map the clinic order id to the field that holds it in the profile.",
      'prescription.clinicOrderId',
    );
  }
  r.set('prescriberRegistrationNumber', r.prescriberId(orc));
  r.set(
    'prescriberName',
    r.oneMade(orc, 12, 'prescribingDoctor.prescriberName', (segment, rep) =>
      [segment.value(12, 6, 1, rep), segment.value(12, 3, 1, rep), segment.value(12, 2, 1, rep)]
        .filter(Boolean)
        .join(' '),
    ),
  );
  r.set(
    'clinicCode',
    r.one(orc, 21, 10, 'clinicInformation.clinicCode') ??
      r.one(orc, 21, 3, 'clinicInformation.clinicCode') ??
      r.one(msh, 4, 1, 'clinicInformation.clinicCode'),
  );
  r.set('clinicName', r.one(orc, 21, 1, 'clinicInformation.name'));
  r.clinicAddress(orc);
  r.contacts(orc, 23, 'clinicContactNumber', 'clinicContactEmail', true);

  if (placerIds.length > 1 && !grouped) {
    r.say(
      'error',
      'hl7.multipleOrders',
      `The message holds more than one order (ORC-2 ${listSome(placerIds)}) and no one placer group number (ORC-4) for them; send one order per message, or, if they are the items of one prescription, give each ORC the prescription's number in ORC-4.`,
      'prescription.clinicOrderId',
    );
    reported.add('prescription.clinicOrderId');
  }

  // Items: one per RXE (RDE^O11, RDE^O01), else per RXO (OMP^O09, ORM^O01).
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
    // The identifier, its alternate (CE/CWE-4…6) or its second alternate (CWE-10…12, v2.7 on) coded in dm+d. A
    // first triplet with no code (only the product's text) gives way to a dm+d alternate that has one.
    const system = segment.value(spec.code, 3);
    const base =
      (system === '' && segment.value(spec.code, 1) !== '') || codedInDmd(segment, spec.code, 1)
        ? 1
        : codedInDmd(segment, spec.code, 4)
          ? 4
          : codedInDmd(segment, spec.code, 10)
            ? 10
            : system === '' || isDmdSystem(system)
              ? 1
              : isDmdSystem(segment.value(spec.code, 6))
                ? 4
                : isDmdSystem(segment.value(spec.code, 12))
                  ? 10
                  : 0;
    const dmdPath = itemField(itemIndex, 'dmdCode');
    const medicationPath = itemField(itemIndex, 'medication');
    if (base === 0) {
      reported.add(dmdPath);
      r.say(
        'error',
        'hl7.codingSystem',
        `Item ${itemIndex + 1} (${pathLabel(itemName, spec.code, 3)}) is coded in ${quote(system)}, not dm+d or SNOMED CT (DMD, SCT, SNOMED CT, http://snomed.info/sct…), so it has no dm+d code.`,
        dmdPath,
      );
      // The text still tells the admin which product was meant.
      r.put(cells, 'medication', r.one(segment, spec.code, 2, medicationPath));
    } else {
      if (system === '' && r.read(segment, spec.code, 1, 1, 1, dmdPath)) {
        r.say(
          'warning',
          'hl7.codingSystemMissing',
          `Item ${itemIndex + 1} (${pathLabel(itemName, spec.code, 3)}) names no coding system; its code was read as a dm+d code.`,
          dmdPath,
        );
      }
      r.put(cells, 'dmdCode', r.one(segment, spec.code, base, dmdPath));
      // An alternate with its code and no text: the first triplet's text names the product.
      r.put(
        cells,
        'medication',
        r.one(segment, spec.code, base + 1, medicationPath) ??
          (base === 1 ? undefined : r.one(segment, spec.code, 2, medicationPath)),
      );
    }
    // Each administration instruction is a repetition: all of them, joined, in their order. One with only its
    // identifier (.1) is read as written; a single word there is likely the sender's code (`111`, `BID`), said.
    const dosagePath = itemField(itemIndex, 'dosageInstructions');
    const codesOnly: string[] = [];
    r.put(
      cells,
      'dosageInstructions',
      r.joined(
        segment,
        spec.dosage,
        (rep) => {
          const text = r.read(segment, spec.dosage, 2, rep, 1, dosagePath);
          if (text) return text;
          const code = r.read(segment, spec.dosage, 1, rep, 1, dosagePath);
          // A number alone is refused by validation (dosage.numberOnly), which says what it is.
          if (code && !/\s/.test(code.value) && !DOSAGE_NUMBER_ONLY.test(code.value)) {
            const system = segment.value(spec.dosage, 3, 1, rep);
            codesOnly.push(`${quote(code.value)}${system ? ` (coded in ${quote(system)})` : ''}`);
          }
          return code;
        },
        joinDosage,
      ),
    );
    // A profile reading the dosage from elsewhere (hl7FieldMap) makes RXE-7 no part of the order.
    if (codesOnly.length > 0 && ctx.overrides?.dosageInstructions === undefined) {
      r.say(
        'warning',
        'hl7.dosageCode',
        `Item ${itemIndex + 1}'s dosage instructions are ${codesOnly.join(' and ')} from ${pathLabel(itemName, spec.dosage, 1)}, with no text (${pathLabel(itemName, spec.dosage, 2)}): that looks like the sender's code for an instruction, and it is sent as written, so check it reads as instructions for the patient.`,
        dosagePath,
      );
    }
    // No administration instructions, but a note (NTE) on the item: the sig is often sent there. Said, not guessed
    // (a note may be a warning to the pharmacist): the profile can read it (dosageInstructions → NTE-3).
    const dosageIndex = INDEX_OF.get('dosageInstructions')!;
    const next = itemSegments[itemIndex + 1]?.position ?? message.segments.length;
    const notes = itemNotes(message.segments, segment.position, next);
    if (cells[dosageIndex] === undefined && ctx.overrides?.dosageInstructions === undefined) {
      const note = notes[0];
      const timing = note ? undefined : itemTiming(message, segment);
      if (note) {
        reported.add(dosagePath);
        r.say(
          'error',
          'hl7.dosageInNote',
          `Item ${itemIndex + 1} has no dosage instructions (${pathLabel(itemName, spec.dosage)} is empty), but the note after it (NTE segment ${note.position + 1}) reads ${quote(note.value(3))}. If the sender puts the dosage there, have the profile read it (dosage instructions from NTE-3); otherwise ask for ${pathLabel(itemName, spec.dosage)}.`,
          dosagePath,
        );
      } else if (timing) {
        // Said, not sent as the dosage: a timing is often the frequency alone ("3 times daily"), without the dose.
        reported.add(dosagePath);
        r.say(
          'error',
          'hl7.dosageInTiming',
          `Item ${itemIndex + 1} has no dosage instructions (${pathLabel(itemName, spec.dosage)} is empty), but its timing (${timing.path}) reads ${quote(timing.text)}. Ask the sender to fill ${pathLabel(itemName, spec.dosage)}, or write the instructions from that timing in the preview (with the dose, if it says only how often).`,
          dosagePath,
        );
      }
    } else if (notes.length > 0 && !ctx.overrides?.dosageInstructions?.startsWith('NTE')) {
      // The order has no field for notes, and one may be what the pharmacist must know ("take with food",
      // "allergic to penicillin"): never left out without a word.
      r.say(
        'warning',
        'hl7.noteNotSent',
        `Item ${itemIndex + 1} has ${notes.length === 1 ? 'a note' : `${notes.length} notes`} after it (${notes
          .slice(0, 3)
          .map((n) => `NTE segment ${n.position + 1}: ${quote(n.value(3))}`)
          .join(
            '; ',
          )}${notes.length > 3 ? '; and more' : ''}), which the order has no field for, so ${notes.length === 1 ? 'it is' : 'they are'} not sent. If ${notes.length === 1 ? 'it belongs' : 'they belong'} to the dosage, add ${notes.length === 1 ? 'it' : 'them'} to the dosage instructions in the preview, or have the profile read the dosage from NTE-3.`,
        dosagePath,
      );
    }
    r.put(cells, 'quantity', r.one(segment, spec.quantity, 1, itemField(itemIndex, 'quantity')));
    const itemRepeats = r.one(segment, spec.repeats, 1, 'prescription.repeatsAllowed');
    if (itemRepeats && repeats && itemRepeats.value !== repeats.value) {
      reported.add('prescription.repeatsAllowed');
      r.say(
        'error',
        'order.rowsDisagree',
        `Items disagree on repeats allowed (${repeats.provenance.kind === 'hl7' ? repeats.provenance.path : ''} '${repeats.value}' on item 1, '${itemRepeats.value}' on item ${itemIndex + 1}); a create-with-clinic order has one value for all items.`,
        'prescription.repeatsAllowed',
      );
    }
    repeats ??= itemRepeats;
    items.push(cells);
  });
  r.set('repeatsAllowed', repeats);
  if (itemSegments.length === 0) noItems(message, ctx, r, reported);

  applyOverrides(message, ctx, order, items, itemSegments, r);
  problems.push(...hl7LineBreakProblems(order, items, ctx.file, ctx.messageIndex));
  return {
    cells: { order: cellSet(order), items: items.map(cellSet) },
    orderControl,
    placers,
    problems,
    reported,
  };
}

/**
 * A message with no RXE or RXO prescribes nothing. Said once, with the segments it holds instead, rather than as
 * validation's generic missing items. (The importer refuses another department's order, an ORM^O01 with an OBR, with
 * this code alone before the map reads it: hl7-other-orders.ts.)
 */
function noItems(message: Hl7Message, ctx: Hl7MapContext, r: CellReader, reported: Set<string>): void {
  const kind = otherOrderKind(message);
  const lab = kind ? ` It is ${kind}, not a prescription.` : '';
  reported.add('prescribedItems');
  r.say(
    'error',
    'hl7.noItems',
    `Message ${ctx.messageIndex} (${message.messageType}) has no RXE or RXO segment, so it prescribes no item; it holds ${segmentsHeld(message)}.${lab}`,
    'prescribedItems',
  );
}

/**
 * Profile overrides: item fields read from the item's own segment, or the next one of that name after it. A path
 * without a repetition holds one value (differing repetitions are an error); `[n]` reads that repetition; `[*]`
 * joins them all.
 */
function applyOverrides(
  message: Hl7Message,
  ctx: Hl7MapContext,
  order: (Cell | undefined)[],
  items: (Cell | undefined)[][],
  itemSegments: Hl7Segment[],
  r: CellReader,
): void {
  for (const [column, pathText] of Object.entries(ctx.overrides ?? {})) {
    const field = fieldByColumn(column);
    const path = parseHl7Path(pathText);
    if (!field || !path) continue; // reported once per file by checkHl7Overrides
    const index = fieldIndex(column)!;
    const readAt = (segment: Hl7Segment | undefined, bodyPath: string): Cell | undefined => {
      if (!segment) return undefined;
      if (path.repetition === 'all') {
        return r.joined(
          segment,
          path.field,
          (rep) => r.read(segment, path.field, path.component, rep, path.subcomponent),
          joinDosage,
        );
      }
      if (path.repetitionGiven) return r.read(segment, path.field, path.component, path.repetition, path.subcomponent);
      return r.one(segment, path.field, path.component, bodyPath, path.subcomponent);
    };
    if (field.level === 'order') {
      r.amounts = field.kind === 'number';
      order[index] = readAt(message.first(path.segment), field.path);
      r.amounts = false;
      continue;
    }
    itemSegments.forEach((itemSegment, i) => {
      const segment =
        itemSegment.name === path.segment
          ? itemSegment
          : message.segments
              .slice(itemSegment.position + 1, itemSegments[i + 1]?.position ?? message.segments.length)
              .find((s) => s.name === path.segment);
      items[i]![index] = readAt(segment, itemPath(index, i));
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
          `The HL7 field map gives "${path}" for ${column}; write a path such as RXE-2.1, PID-11[2].5 or RXE-7[*].2. It was ignored.`,
        ),
      ];
    }
    return [];
  });
}
