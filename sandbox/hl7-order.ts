import { badRequest } from './http-io.js';

/**
 * Just enough HL7 v2 reading for the sandbox to store an order and apply its rules: which clinic sent it, the
 * clinic's order id, and the patient's surname and birth date (for the locked-out rule). The message is kept
 * verbatim; nothing here rewrites it.
 */

export const ACCEPTED_MESSAGE_TYPES = ['RDE^O11', 'OMP^O09', 'ORM^O01'] as const;

export interface Hl7OrderFacts {
  messageType: string;
  clinicCode: string;
  clinicOrderId: string;
  patientSurname: string | null;
  /** `YYYY-MM-DD` when PID-7 holds a date. */
  patientDateOfBirth: string | null;
}

interface Delimiters {
  field: string;
  component: string;
  subcomponent: string;
}

function component(value: string | undefined, index: number, d: Delimiters): string {
  // Repetitions: the first one is the one that counts here.
  const first = (value ?? '').split('~')[0] ?? '';
  return ((first.split(d.component)[index] ?? '').split(d.subcomponent)[0] ?? '').trim();
}

export function readHl7Order(message: string): Hl7OrderFacts {
  const segments = message
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  const msh = segments[0];
  if (!msh?.startsWith('MSH') || msh.length < 8) {
    throw badRequest('invalid HL7 message', { field: 'MSH', message: 'the message must start with an MSH segment' });
  }
  const d: Delimiters = { field: msh[3]!, component: msh[4]!, subcomponent: msh[7] ?? '&' };
  const fieldsOf = (id: string): string[] | undefined =>
    segments.find((segment) => segment.startsWith(`${id}${d.field}`))?.split(d.field);

  // MSH-1 is the separator itself, so after splitting MSH-n sits at index n - 1; in other segments at index n.
  const mshFields = msh.split(d.field);
  const messageType = [component(mshFields[8], 0, d), component(mshFields[8], 1, d)].join('^');
  if (!(ACCEPTED_MESSAGE_TYPES as readonly string[]).includes(messageType)) {
    throw badRequest('invalid HL7 message', {
      field: 'MSH-9',
      message: `message type ${messageType || '(none)'} is not accepted; send ${ACCEPTED_MESSAGE_TYPES.join(', ')}`,
    });
  }

  const orc = fieldsOf('ORC');
  if (!orc) throw badRequest('invalid HL7 message', { field: 'ORC', message: 'the message has no ORC segment' });
  const clinicOrderId = component(orc[2], 0, d);
  if (!clinicOrderId) {
    throw badRequest('invalid HL7 message', { field: 'ORC-2', message: 'ORC-2 (placer order number) is empty' });
  }
  // ORC-21 is an XON: the organisation identifier is component 10, older senders put it in component 3.
  const clinicCode = component(orc[21], 9, d) || component(orc[21], 2, d) || component(mshFields[3], 0, d);
  if (!clinicCode) {
    throw badRequest('invalid HL7 message', {
      field: 'ORC-21',
      message: 'no clinic code: put it in ORC-21 (organisation identifier) or MSH-4 (sending facility)',
    });
  }

  const pid = fieldsOf('PID');
  const surname = component(pid?.[5], 0, d) || null;
  const birth = component(pid?.[7], 0, d);
  const patientDateOfBirth = /^\d{8}/.test(birth)
    ? `${birth.slice(0, 4)}-${birth.slice(4, 6)}-${birth.slice(6, 8)}`
    : null;
  return { messageType, clinicCode, clinicOrderId, patientSurname: surname, patientDateOfBirth };
}
