import { isLoopbackHost } from '../../../shared/loopback.js';
import type { Problem } from '../model/imported-order.js';
import type { MappingProfile } from '../model/mapping-profile.js';
import { peerAddressOf, peerMatcher } from '../model/peer-address.js';
import { profileSender, senderKey } from '../model/sender-binding-input.js';
import type { AckError } from './hl7-ack.js';

/**
 * A live-intake sender bound by its HL7 profile (docs/security.md, finding 27): a sender is whatever its MSH-3/MSH-4
 * say, so without a binding any peer the listener admits can write another sender's name and act as it. `peers`
 * says where the sender's messages may come from, `clinics` which clinics it may order and cancel for. The binding
 * is the sender's, whichever of its profiles (one per message type) carries it: a message type with an unbound
 * profile, or none, is no way around it. A sender none of whose profiles sets them is unbound, as before.
 */
export interface SenderBinding {
  /** The profiles the binding comes from, by name (for the admin's problem text). */
  profiles: string[];
  /** Whether a peer (`ADDRESS:PORT`, as the listener names it) may send as this sender; undefined: any. */
  peerAllowed: ((peer: string) => boolean) | undefined;
  /** The clinic codes it may act for; undefined: any. */
  clinics: ReadonlySet<string> | undefined;
}

/** A profile's peers as a matcher, made once per parsed profile (the store hands out the same object while unchanged). */
const MATCHERS = new WeakMap<MappingProfile, (address: string) => boolean>();

function matcherOf(profile: MappingProfile & { peers: string[] }): (address: string) => boolean {
  let matcher = MATCHERS.get(profile);
  if (!matcher) MATCHERS.set(profile, (matcher = peerMatcher(profile.peers)));
  return matcher;
}

/** The union of the bindings the sender's profiles set (a profile that sets none adds nothing). */
export function bindingOf(sender: string, profiles: readonly MappingProfile[]): SenderBinding {
  const key = senderKey(sender);
  const named = new Set<string>();
  const matchers: Array<(address: string) => boolean> = [];
  let clinics: Set<string> | undefined;
  for (const profile of profiles) {
    const of = profileSender(profile);
    if (of === undefined || key === '' || senderKey(of) !== key) continue;
    if (profile.peers) {
      matchers.push(matcherOf(profile as MappingProfile & { peers: string[] }));
      named.add(profile.name);
    }
    if (profile.clinics) {
      clinics ??= new Set<string>();
      for (const code of profile.clinics) clinics.add(code);
      named.add(profile.name);
    }
  }
  return {
    profiles: [...named].sort(),
    peerAllowed:
      matchers.length === 0
        ? undefined
        : (peer) => {
            const address = peerAddressOf(peer);
            return matchers.some((matches) => matches(address));
          },
    clinics,
  };
}

/** Whether the sender may act for this clinic (an order without a clinic code is left to validation). */
export function mayActFor(binding: SenderBinding, clinicCode: string | null): boolean {
  return !binding.clinics || !clinicCode || binding.clinics.has(clinicCode);
}

/**
 * AR for a message from a peer its sender is not accepted from: nothing read, nothing about orders. The peer is
 * told its own address only.
 */
export function peerRefusal(sender: string, peer: string): AckError {
  return {
    hl7Code: '207',
    location: 'MSH^1^3',
    text:
      `${sender} is not accepted from this address (${peerAddressOf(peer)}): the message was not read or staged. ` +
      "Send it from the sender's own system, or ask the pharmacy to add this address to the sender's profile.",
  };
}

/** The sender's ERR for an order or cancel for a clinic it may not act for: the same whether the order is known. */
export function clinicNotActedOn(
  sender: string,
  order: { clinicCode: string | null; clinicOrderId: string | null; orderControl: string },
): AckError {
  const what = order.orderControl === 'CA' ? 'ORC-1 CA' : 'ORC-1 NW';
  return {
    hl7Code: '207',
    text:
      `${what} for order '${order.clinicOrderId}' of clinic '${order.clinicCode}' was not acted on: ${sender} may ` +
      "not order or cancel for that clinic here. It waits for the pharmacy's review.",
  };
}

export const CLINIC_NOT_BOUND = 'intake.clinicNotBound';

/** The admin's problem for it: which clinic, which profiles bind the sender, and what accepting it does. */
export function clinicNotBoundProblem(
  sender: string,
  binding: SenderBinding,
  order: { clinicCode: string | null; orderControl: string },
  location: { file: string; message?: number },
): Problem {
  const clinics = [...(binding.clinics ?? [])].sort().join(', ');
  const several = binding.profiles.length > 1;
  const names = binding.profiles.map((name) => `'${name}'`).join(', ');
  const profiles = several ? `profiles ${names} let` : `profile ${names} lets`;
  const what = order.orderControl === 'CA' ? 'cancel' : 'order';
  return {
    severity: 'warning',
    file: location.file,
    ...(location.message !== undefined ? { message: location.message } : {}),
    field: 'clinicInformation.clinicCode',
    code: CLINIC_NOT_BOUND,
    text:
      `Clinic '${order.clinicCode}' is not one of the clinics ${sender}'s ${profiles} it order and cancel ` +
      `for (${clinics}): this ${what} was not acted on. Accept it only if that sender may act for the clinic (and ` +
      `add it to the profile on the Intake screen, or with --clinic); else discard the batch or leave it.`,
  };
}

/**
 * `serve`'s warning for an HL7 profile whose sender is not fully bound while the listener admits peers other than
 * this computer (one line, no patient data), or undefined when it sets both.
 */
export function unboundWarning(profile: MappingProfile): string | undefined {
  const sender = profileSender(profile);
  if (sender === undefined || (profile.clinics && profile.peers)) return undefined;
  const missing = [profile.peers ? '' : '--peer', profile.clinics ? '' : '--clinic'].filter(Boolean).join(' or ');
  const can = [
    profile.peers ? '' : `any peer the listener admits can send as ${sender}`,
    profile.clinics ? '' : 'for any clinic',
  ]
    .filter(Boolean)
    .join(', ');
  return (
    `warning: profile '${profile.name}' (${sender}) has no ${missing} binding: ${can || 'unbound'} ` +
    '(docs/security.md finding 27; rx-batch profile add-hl7 … --clinic CODE --peer ADDR)'
  );
}

/** Whether a listener on `host` with this allow-list admits peers other than this computer. */
export function admitsOtherComputers(host: string, allow: readonly string[]): boolean {
  if (isLoopbackHost(host)) return false;
  return allow.length === 0 || allow.some((address) => !isLoopbackHost(address.replace(/^::ffff:/i, '')));
}
