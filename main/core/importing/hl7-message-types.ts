import { ORDER_MESSAGE_TYPES, isOrderMessageType } from '../../../shared/hl7-message-types.js';
import { quote } from './problems.js';

/**
 * Which HL7 message types carry orders, which of them the service's HL7 endpoint takes as they are, and why the
 * others are refused.
 *
 * RDE^O01 is the pharmacy/treatment encoded order as HL7 v2.3 named it (2.4 renamed it RDE^O11; UK systems on 2.3
 * still send it): the segments the field map reads (PID, ORC, RXE) sit at the same positions, so it is read like
 * RDE^O11. The service's `create-with-hl7message` reads RDE^O11, OMP^O09 and ORM^O01 (the order service reference),
 * so an RDE^O01 order goes by create-with-clinic or v2, never forwarded as HL7.
 */

export const ACCEPTED_MESSAGE_TYPES = ORDER_MESSAGE_TYPES;

/** What the service's HL7 endpoint reads: the HL7 forward route sends only these. */
export const FORWARDED_MESSAGE_TYPES = ['RDE^O11', 'OMP^O09', 'ORM^O01'] as const;

/** Why a message type, by MSH-9.1, is not an order (for the ones senders send by mistake). */
const NOT_AN_ORDER: Record<string, string> = {
  RDS: 'a pharmacy dispense: it records medicine already dispensed, not an order to dispense',
  RGV: 'a pharmacy give: it records what is to be given to the patient, not an order to dispense',
  RAS: 'a pharmacy administration: it records medicine already given, not an order to dispense',
  RRE: 'a reply to a pharmacy order, not an order',
  RRD: 'a reply to a pharmacy dispense, not an order',
  ORP: 'a reply to a pharmacy order, not an order',
  ORR: 'a reply to an order, not an order',
  ACK: 'an acknowledgement, not an order',
  ADT: 'a patient administration message (admission, transfer, update), not an order',
  // Other departments' orders and their results: each a message type of its own from v2.4 on.
  OML: 'a laboratory order, not a pharmacy order: it requests tests (OBR) and has no RXO or RXE item',
  OMG: 'a general clinical order (a test or procedure), not a pharmacy order: it has no RXO or RXE item',
  OMI: 'an imaging order, not a pharmacy order: it has no RXO or RXE item',
  OMB: 'a blood product order, not a pharmacy order: it has no RXO or RXE item',
  OMD: 'a dietary order, not a pharmacy order: it has no RXO or RXE item',
  OMS: 'a stock requisition, not a prescription: it has no RXO or RXE item',
  OMN: 'a non-stock requisition, not a prescription: it has no RXO or RXE item',
  ORU: 'an observation result (lab or clinical results), not an order',
  OUL: 'a laboratory result sent unsolicited, not an order',
  ORL: 'a reply to a laboratory order, not an order',
  ORG: 'a reply to a general clinical order, not an order',
  ORI: 'a reply to an imaging order, not an order',
};

/** Types of an order message's kind that still are no new order, by MSH-9.1^MSH-9.2. */
const NOT_A_NEW_ORDER: Record<string, string> = {
  'RDE^O25':
    'a pharmacy refill authorisation request (HL7 v2.6 on): it asks the prescriber to authorise a refill of an earlier order, and is not an order to dispense',
};

const listed = (types: readonly string[]) => `${types.slice(0, -1).join(', ')} and ${types.at(-1)}`;

/** The sentence for a message whose MSH-9 is not an order message type. */
export function messageTypeRefusal(index: number, messageType: string): string {
  const kind = NOT_A_NEW_ORDER[messageType.toUpperCase()] ?? NOT_AN_ORDER[messageType.split('^')[0]!];
  const only = `${listed(ACCEPTED_MESSAGE_TYPES)} carry orders`;
  if (kind) {
    return `Message ${index} is ${quote(messageType)} (MSH-9), ${kind}. Only ${only}; ask the sender for the prescription's order message.`;
  }
  const hint = misspeltOrderType(messageType);
  if (hint) return `Message ${index} is ${quote(messageType)} (MSH-9): ${hint}. Only ${only}.`;
  return `Message ${index} is ${quote(messageType || 'of no type')} (MSH-9); only ${only}.`;
}

/**
 * An order type written the way some senders write it: the structure's `RDE_O11` (MSH-9.3's form) or `RDE-O11` as
 * MSH-9.1, the type without its trigger event (`RDE`), or in lower case. Never read as the type (the forward route
 * sends the message as it is, and the sender's system should be put right), but said what to ask for.
 */
function misspeltOrderType(messageType: string): string | undefined {
  const accepted = ACCEPTED_MESSAGE_TYPES as readonly string[];
  const joined = /^([A-Za-z]{3})[_\- ]([A-Za-z]\d{2})$/.exec(messageType);
  if (joined) {
    const meant = `${joined[1]!.toUpperCase()}^${joined[2]!.toUpperCase()}`;
    if (accepted.includes(meant)) {
      return `that is the message structure (as MSH-9.3 writes it) given as the type, where HL7 separates the type and the trigger event with the component separator: ask the sender for MSH-9 ${quote(`${meant}^${meant.replace('^', '_')}`)}`;
    }
  }
  const upper = messageType.toUpperCase();
  if (upper !== messageType && accepted.includes(upper)) {
    return `written in lower case, where HL7 message types are capitals: ask the sender for ${quote(upper)}`;
  }
  const withTrigger = accepted.filter((type) => type.startsWith(`${upper}^`));
  if (!messageType.includes('^') && withTrigger.length > 0) {
    return `a type with no trigger event (MSH-9.2): ask the sender for ${withTrigger.map(quote).join(' or ')}`;
  }
  return undefined;
}

export const isAcceptedMessageType = isOrderMessageType;

/** MSH-9.1^MSH-9.2 of a message's text (segments joined by `\r`, MSH first), read without parsing the rest. */
export function messageTypeOf(hl7: string): string {
  if (!hl7.startsWith('MSH') || hl7.length < 8) return '';
  const field = hl7.charAt(3);
  const component = hl7.charAt(4);
  const end = hl7.indexOf('\r');
  const fields = (end === -1 ? hl7 : hl7.slice(0, end)).split(field);
  // fields[0] is "MSH" and fields[1] MSH-2 (MSH-1 is the separator itself): MSH-9 is fields[8].
  const [type = '', trigger = ''] = (fields[8] ?? '').split(component);
  return [type.trim(), trigger.trim()].filter(Boolean).join('^');
}

/**
 * Why an order read from a message of this type cannot be forwarded as HL7 (undefined when it can): the endpoint
 * reads only FORWARDED_MESSAGE_TYPES.
 */
export function notForwardable(messageType: string): string | undefined {
  if ((FORWARDED_MESSAGE_TYPES as readonly string[]).includes(messageType)) return undefined;
  const what = messageType === 'RDE^O01' ? " (HL7 v2.3's pharmacy order)" : '';
  return `This order came from an ${messageType || 'untyped'} message${what}; the service's HL7 endpoint reads only ${listed(FORWARDED_MESSAGE_TYPES)}, so the original message cannot be forwarded as it is: send the batch by create-with-clinic or v2.`;
}
