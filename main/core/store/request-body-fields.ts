import { surnameSearchKey } from '../../../shared/patient-surname.js';
import type { OrderRoute } from './order-state.js';

/**
 * The few fields the store reads out of a stored request body: the patient's surname (for search, migration 009)
 * and an HL7 message's control id (MSH-10, for an order's origin). The importer parsed the body once already, but
 * the store must also read bodies it was handed as text (orders enqueued directly, rows written before 009), so
 * it reads them itself. This is a reader for two known fields, not an HL7 parser: it splits by the delimiters the
 * message declares in MSH-1/MSH-2 and decodes the standard escapes, as the importer's hl7-adapter.ts does.
 */

/** The patient's surname as the body gives it: `customer.surname` (v1, v2) or PID-5.1 (HL7); null if absent. */
export function patientSurnameOf(route: OrderRoute, requestBody: string): string | null {
  if (route === 'hl7') return hl7Value(requestBody, 'PID', 5, 1);
  let parsed: unknown;
  try {
    // Plain JSON.parse: a dm+d code beyond 2^53 rounds here, which does not matter for reading the surname.
    parsed = JSON.parse(requestBody);
  } catch {
    return null;
  }
  const surname = (parsed as { customer?: { surname?: unknown } } | null)?.customer?.surname;
  return typeof surname === 'string' && surname.trim() !== '' ? surname.trim() : null;
}

/** The search key of the body's patient surname (migration 009's `order_surnames`), or null when it names none. */
export function patientSurnameKeyOf(route: OrderRoute, requestBody: string): string | null {
  const surname = patientSurnameOf(route, requestBody);
  // At most 400 UTF-16 units, so at most 400 characters for SQLite's CHECK whatever the letters.
  const key = surname === null ? '' : surnameSearchKey(surname).slice(0, 400);
  return key === '' ? null : key;
}

/** MSH-10, the message control id; null when absent. */
export function hl7ControlId(message: string): string | null {
  return hl7Value(message, 'MSH', 10, 1);
}

interface Delimiters {
  field: string;
  component: string;
  repetition: string;
  escape: string;
  subcomponent: string;
}

function delimitersOf(header: string): Delimiters | null {
  if (!header.startsWith('MSH') || header.length < 8) return null;
  const field = header.charAt(3);
  const end = header.indexOf(field, 4);
  const [component = '', repetition = '', escape = '', subcomponent = ''] = header.slice(4, end === -1 ? 8 : end);
  const all = [field, component, repetition, escape, subcomponent];
  if (all.some((c) => c === '' || /[A-Za-z0-9\s]/.test(c)) || new Set(all).size !== all.length) return null;
  return { field, component, repetition, escape, subcomponent };
}

/**
 * The decoded, trimmed text of the first repetition's `component` (first subcomponent) of `field` in the first
 * `segment` of the message; null when the message or the value is not there. MSH-1 is the field separator, so
 * MSH-n is the (n - 1)th piece of the MSH line.
 */
export function hl7Value(message: string, segment: string, field: number, component: number): string | null {
  const lines = message.replace(/^\v/, '').split(/\r\n|\r|\n/);
  const delimiters = delimitersOf(lines[0] ?? '');
  if (!delimiters) return null;
  const line = lines.find((text) => text.startsWith(`${segment}${delimiters.field}`));
  if (!line) return null;
  const pieces = line.split(delimiters.field);
  const raw = pieces[segment === 'MSH' ? field - 1 : field] ?? '';
  const value = raw.split(delimiters.repetition)[0]!.split(delimiters.component)[component - 1] ?? '';
  const decoded = decodeEscapes(value.split(delimiters.subcomponent)[0]!, delimiters).trim();
  return decoded === '' ? null : decoded;
}

function decodeEscapes(text: string, d: Delimiters): string {
  if (!text.includes(d.escape)) return text;
  const e = d.escape.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text.replace(new RegExp(`${e}([^${e}]*)${e}`, 'g'), (_token, body: string) => {
    switch (body) {
      case 'F':
        return d.field;
      case 'S':
        return d.component;
      case 'T':
        return d.subcomponent;
      case 'R':
        return d.repetition;
      case 'E':
        return d.escape;
      case '.br':
        return '\n';
    }
    if (/^X[0-9A-Fa-f]+$/.test(body)) return decodeHexBytes(body.slice(1));
    // Highlighting and character-set switches carry no letters of their own.
    return '';
  });
}

/** `\Xhh..\` as UTF-8, or Latin-1 when the bytes are not UTF-8 (as the importer reads them). */
function decodeHexBytes(hex: string): string {
  const bytes = Buffer.from(hex.length % 2 === 0 ? hex : `0${hex}`, 'hex');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return bytes.toString('latin1');
  }
}
