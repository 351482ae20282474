import { FIELDS, fieldIndex } from '../model/field-catalogue.js';
import type { Hl7Message } from '../model/hl7-adapter.js';
import type { Problem } from '../model/imported-order.js';
import { messageDay, nameCandidates } from '../model/hl7-patient-name.js';

/**
 * Where the default HL7 map reads each required field (README "HL7 v2" table), by template column: an item's field
 * from its RXE (RDE) or its RXO (OMP, ORM). Payment type, courier and currency are not in HL7: staging says which
 * profile setting gives them (staging/route-request.ts).
 */
const READ_FROM: Record<string, string | { RXE: string; RXO: string }> = {
  title: 'PID-5.5 (the name prefix)',
  firstName: 'PID-5.2 (the given name)',
  surname: 'PID-5.1 (the family name)',
  dateOfBirth: 'PID-7',
  gender: 'PID-8',
  homeAddress1: 'PID-11.1 (the home address)',
  homeCity: 'PID-11.3 (the home address)',
  homePostCode: 'PID-11.5 (the home address)',
  homeCountryCode: 'PID-11.6 (the home address)',
  deliveryAddress1: 'PID-11.1 (the delivery address, XAD-7 SH or M)',
  deliveryCity: 'PID-11.3 (the delivery address, XAD-7 SH or M)',
  deliveryPostCode: 'PID-11.5 (the delivery address, XAD-7 SH or M)',
  deliveryCountryCode: 'PID-11.6 (the delivery address, XAD-7 SH or M)',
  clinicOrderId: 'ORC-2',
  prescriberRegistrationNumber: 'ORC-12.1',
  prescriberName: 'ORC-12 (the ordering provider: its .2, .3 and .6)',
  clinicCode: 'ORC-21.10, ORC-21.3 or MSH-4.1',
  clinicName: 'ORC-21.1',
  clinicAddress1: 'ORC-22.1',
  clinicPostcode: 'ORC-22.5',
  clinicCountryCode: 'ORC-22.6',
  dmdCode: { RXE: 'RXE-2.1', RXO: 'RXO-1.1' },
  medication: { RXE: 'RXE-2.2', RXO: 'RXO-1.2' },
  dosageInstructions: { RXE: 'RXE-7', RXO: 'RXO-7' },
  quantity: { RXE: 'RXE-10', RXO: 'RXO-11' },
};

/** The columns read from the chosen PID-5 repetition. */
const NAME_COLUMNS: ReadonlySet<string> = new Set(['title', 'firstName', 'surname']);

/** Fields a sender gives the same for all its orders (its clinic, often its one prescriber): a constant may do. */
const ONE_PER_CLINIC = /^(?:clinic(?!OrderId)|prescriber)/;

/**
 * A required field an HL7 order lacks is said with the field of the message it is read from, so the admin knows what
 * to ask the sender for ("Title is required." named nothing an HL7 sender knows). A profile's override names its own.
 */
export function sayWhereRequired(
  problems: Problem[],
  message: Hl7Message,
  overrides: Record<string, string> | undefined,
): void {
  const items = message.first('RXE') ? 'RXE' : 'RXO';
  let nameRepetition: number | undefined;
  for (const p of problems) {
    if (p.code !== 'field.required' || p.field === undefined) continue;
    const where = readFrom(p.field, items, overrides);
    if (where === undefined) continue;
    const { column, override } = where;
    let from = where.from;
    // The name is read from the repetition its type chose (a legal name before a display name): say that one, or
    // the admin finds PID-5.2 filled in the first and the error wrong.
    if (!override && NAME_COLUMNS.has(column)) {
      const pid = message.first('PID');
      nameRepetition ??= pid ? (nameCandidates(pid, messageDay(message.first('MSH')))[0] ?? 1) : 1;
      if (nameRepetition > 1)
        from = from.replace(
          /^PID-5\.(\d) \(/,
          `PID-5[${nameRepetition}].$1 (name repetition ${nameRepetition}, chosen by its type: `,
        );
    }
    const fix = ONE_PER_CLINIC.test(column)
      ? 'Ask the sender to fill it, or give the field a constant in the mapping profile (one value for every order of this sender).'
      : 'Ask the sender to fill it, or type it in the preview.';
    p.text = `${p.text.replace(/\.$/, '')}: the message has no value in ${from}${override ? ", where the profile's field map reads it" : ''}. ${fix}`;
  }
}

/** Where a required body field is read from: the profile's field map, else the default map (its words). */
function readFrom(
  field: string,
  items: 'RXE' | 'RXO',
  overrides: Record<string, string> | undefined,
): { column: string; from: string; override: boolean } | undefined {
  const column = FIELDS[fieldIndex(field) ?? -1]?.column;
  if (column === undefined) return undefined;
  const override = overrides?.[column];
  const entry = READ_FROM[column];
  const from = override ?? (typeof entry === 'object' ? entry[items] : entry);
  return from === undefined ? undefined : { column, from, override: override !== undefined };
}

/**
 * The one field of the message (e.g. `PID-5.5`) a missing required body field is read from, for the ACK's ERR-2;
 * undefined where it is read from one of several (the clinic code) or the repetition is not known (a delivery
 * address is a PID-11 repetition of its own: only the field is said). `hl7`: the message, to tell RDE's RXE items
 * from OMP's and ORM's RXO.
 */
export function requiredFieldPath(
  field: string,
  hl7: string | undefined,
  overrides: Record<string, string> | undefined,
): string | undefined {
  // As sayWhereRequired tells them: an order message with an RXE has RXE items.
  const items = hl7 === undefined || /(?:^|\r)RXE/.test(hl7) ? 'RXE' : 'RXO';
  const where = readFrom(field, items, overrides);
  const path = where?.from.split(' ')[0];
  if (where === undefined || path === undefined || path.endsWith(',')) return undefined;
  return where.column.startsWith('delivery') && !where.override ? path.replace(/\..*$/, '') : path;
}
