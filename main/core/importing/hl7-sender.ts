import { cutText } from '../../../shared/cut-text.js';
import { HL7_SENDER_MAX, type Hl7Sender } from '../../../shared/staging-views.js';
import { Hl7ParseError, parseHl7Message, type Hl7Message, type Hl7Segment } from '../model/hl7-adapter.js';
import type { MappingProfile } from '../model/mapping-profile.js';
import { quote } from './problems.js';

/**
 * The HL7 counterpart of a CSV header fingerprint: who sent the file. An HL7 profile saved from an import keeps
 * its sender, and the next file from the same sender is read with it. Only envelope fields are read (sending
 * application, sending facility, message type), never a patient segment: the fingerprint holds no patient data.
 */

export type { Hl7Sender };

/** An HD field (application or facility): its namespace id, else its universal id (`^1.2.3^ISO`). */
const hd = (segment: Hl7Segment | undefined, field: number): string =>
  segment ? segment.value(field, 1) || segment.value(field, 2) : '';

/**
 * An FHS or BHS line read with the message parser: their fields are numbered as MSH's (separator, encoding
 * characters, sending application, sending facility), so the line is parsed as a one-segment message.
 */
function envelopeSegment(line: string): Hl7Segment | undefined {
  try {
    return parseHl7Message([`MSH${line.slice(3)}`]).segments[0];
  } catch (error) {
    if (error instanceof Hl7ParseError) return undefined;
    throw error;
  }
}

/**
 * The sender of a file: sending application and facility from the file header (FHS), else the batch header
 * (BHS), else the first message's MSH, field by field; the message type from the first message. Undefined when
 * neither application nor facility is given: an anonymous file must not match every anonymous profile.
 */
export function readHl7Sender(envelope: readonly string[], first: Hl7Message | undefined): Hl7Sender | undefined {
  const headers = [
    ...envelope.filter((line) => line.startsWith('FHS')),
    ...envelope.filter((line) => line.startsWith('BHS')),
  ].map(envelopeSegment);
  const msh = first?.segments[0];
  const pick = (field: number) => [...headers, msh].map((segment) => hd(segment, field)).find(Boolean) ?? '';
  const sender = withinBounds({ application: pick(3), facility: pick(4), messageType: first?.messageType ?? '' });
  return sender.application || sender.facility ? sender : undefined;
}

/**
 * Each part cut to what the batch views and profiles allow: kept whole, one file or message with a longer MSH-3
 * made `import.file` and then `batches.list` answers outside the contract for as long as its batch was kept.
 */
export function withinBounds(sender: Hl7Sender): Hl7Sender {
  const fits = (Object.keys(HL7_SENDER_MAX) as Array<keyof Hl7Sender>).every(
    (part) => sender[part].length <= HL7_SENDER_MAX[part],
  );
  if (fits) return sender;
  return {
    application: cutText(sender.application, HL7_SENDER_MAX.application),
    facility: cutText(sender.facility, HL7_SENDER_MAX.facility),
    messageType: cutText(sender.messageType, HL7_SENDER_MAX.messageType),
  };
}

/** RDE^O01 is HL7 v2.3's name of RDE^O11 (the same order, renamed in 2.4): one kind of message for a profile. */
const messageKind = (type: string) => (type === 'RDE^O01' ? 'RDE^O11' : type);

const key = (sender: Hl7Sender) => {
  const [application, facility, type] = [sender.application, sender.facility, sender.messageType].map((part) =>
    part.trim().toUpperCase(),
  );
  return [application, facility, messageKind(type!)].join('\u0000');
};

/**
 * Same sender: application, facility and message type equal, ignoring case and surrounding spaces (RDE^O01 and
 * RDE^O11 counting as one type).
 */
export const sameSender = (a: Hl7Sender, b: Hl7Sender): boolean => key(a) === key(b);

/** "sending application "EPR" at facility "CLINIC-A" (RDE^O11)", for reports and the CLI. */
export function describeSender(sender: Hl7Sender): string {
  const parts = [
    sender.application ? `sending application ${quote(sender.application)}` : 'no sending application',
    sender.facility ? `at facility ${quote(sender.facility)}` : 'at no facility',
  ];
  return `${parts.join(' ')}${sender.messageType ? ` (${sender.messageType})` : ''}`;
}

export type SenderMatch =
  { kind: 'one'; profile: MappingProfile } | { kind: 'several'; names: string[] } | { kind: 'none' };

/**
 * The saved profiles for this sender, each once: profiles are counted by name (staging offers some profiles
 * twice, under a second header fingerprint).
 */
export function profilesForSender(sender: Hl7Sender, profiles: readonly MappingProfile[]): MappingProfile[] {
  const byName = new Map<string, MappingProfile>();
  for (const profile of profiles) {
    if (profile.hl7Sender && sameSender(profile.hl7Sender, sender) && !byName.has(profile.name)) {
      byName.set(profile.name, profile);
    }
  }
  return [...byName.values()];
}

/** The saved profile for this sender: exactly one must match; several is a question for the admin, not a guess. */
export function profileForSender(sender: Hl7Sender | undefined, profiles: readonly MappingProfile[]): SenderMatch {
  if (!sender) return { kind: 'none' };
  const found = profilesForSender(sender, profiles);
  const [only, ...more] = found;
  if (!only) return { kind: 'none' };
  if (more.length === 0) return { kind: 'one', profile: only };
  return { kind: 'several', names: found.map((profile) => profile.name).sort() };
}

/** At most this many distinct message senders are listed for a file; more are only said (`more`). */
export const MESSAGE_SENDERS_LISTED = 100;

/**
 * The senders of a file's messages, as live intake's staging rules name them (main/core/intake/README.md,
 * "Rules"): `APP^FACILITY` from each message's MSH-3 and MSH-4 (first components), `APP` when it gives no
 * facility. A message naming neither counts as the file's FHS (else BHS) sender; one with no sender anywhere as
 * `''` (the default rule's). Each once, in the order first seen; envelope fields only, never a patient's.
 */
export class MessageSenders {
  readonly #keys = new Set<string>();
  #more = false;

  add(msh: Hl7Segment | undefined, envelope: readonly string[]): void {
    let key = senderKey(msh?.value(3, 1) ?? '', msh?.value(4, 1) ?? '');
    if (key === '') {
      const header = readHl7Sender(envelope, undefined);
      key = header ? senderKey(header.application, header.facility) : '';
    }
    if (this.#keys.has(key)) return;
    if (this.#keys.size >= MESSAGE_SENDERS_LISTED) this.#more = true;
    else this.#keys.add(key);
  }

  /** Undefined when no message was read. */
  get listed(): { senders: string[]; more: boolean } | undefined {
    return this.#keys.size > 0 ? { senders: [...this.#keys], more: this.#more } : undefined;
  }
}

/** Parts cut to 200 characters (a rule's are at most 50, so no match changes), so a key is at most 401. */
const senderKey = (application: string, facility: string) =>
  facility ? `${application.slice(0, 200)}^${facility.slice(0, 200)}` : application.slice(0, 200);
