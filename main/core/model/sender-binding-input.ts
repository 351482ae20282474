import type { MappingProfile } from './mapping-profile.js';
import { SENDER_CLINICS_MAX, SENDER_PEERS_MAX } from './mapping-profile.js';
import { peerRuleProblem } from './peer-address.js';

/**
 * Live intake's sender binding as an admin gives it (the CLI's `--clinic`/`--peer`, the Intake screen's lists):
 * each entry trimmed and kept once, then checked, so both front ends refuse the same entries with the same words.
 * The profile schema (mapping-profile.ts) checks them again when saved.
 */

export type BindingKind = 'clinics' | 'peers';

/** Why `code` is not a clinic code, or undefined when it is one. */
export function clinicCodeProblem(code: string): string | undefined {
  if (code.length > 64) return `"${code.slice(0, 64)}…" is longer than a clinic code (64 characters)`;
  return /\p{Cc}/u.test(code) || code === '' ? `"${code}" is not a clinic code` : undefined;
}

export const BINDING_MAX: Record<BindingKind, number> = { clinics: SENDER_CLINICS_MAX, peers: SENDER_PEERS_MAX };
const PROBLEM_OF: Record<BindingKind, (value: string) => string | undefined> = {
  clinics: clinicCodeProblem,
  peers: peerRuleProblem,
};

export type BindingList =
  | { ok: true; values: string[] | undefined }
  /** `problem` names the entry and why; `tooMany`: more than BINDING_MAX distinct entries. */
  | { ok: false; problem: string; tooMany: boolean };

/** The entries, trimmed and each once (undefined when there are none: unbound), or the first problem. */
export function readBindingList(kind: BindingKind, values: readonly string[]): BindingList {
  const unique = [...new Set(values.map((value) => value.trim()))];
  if (unique.length === 0) return { ok: true, values: undefined };
  const max = BINDING_MAX[kind];
  if (unique.length > max) {
    return { ok: false, tooMany: true, problem: `at most ${max} ${kind} bind a sender (${unique.length} given)` };
  }
  for (const value of unique) {
    const problem = PROBLEM_OF[kind](value);
    if (problem) return { ok: false, tooMany: false, problem };
  }
  return { ok: true, values: unique };
}

/** A profile's sender as live intake names it: `APP^FACILITY`, or `APP`; undefined for a CSV profile. */
export function profileSender(profile: MappingProfile): string | undefined {
  const sender = profile.hl7Sender;
  if (!sender) return undefined;
  return sender.facility ? `${sender.application}^${sender.facility}` : sender.application;
}

/** The sender as the intake compares it: ignoring case and surrounding spaces. */
export const senderKey = (sender: string): string => sender.trim().toUpperCase();

/** Two senders the intake takes for one. */
export const sameSender = (a: string, b: string): boolean => senderKey(a) === senderKey(b);

/** Whether the profile binds its sender at all (to peers, clinics or both). */
export const bindsSender = (profile: MappingProfile): boolean =>
  profile.clinics !== undefined || profile.peers !== undefined;

/** `clinics CLINIC-A, CLINIC-B; peers 10.20.0.0/16`, or '' when the profile sets neither. */
export function bindingText(profile: MappingProfile): string {
  return [
    profile.clinics ? `clinics ${profile.clinics.join(', ')}` : '',
    profile.peers ? `peers ${profile.peers.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('; ');
}

/** Longest `describeBinding`: a sender, a profile name and a full binding (100 codes of 64, 32 rules of 50). */
export const BINDING_DESCRIPTION_MAX = 9_000;

/** `EPR-7^CLINIC-H (profile EPR-A): clinics C1; peers 10.20.0.0/16`, or `… : unbound`: what the audit log keeps. */
export function describeBinding(profile: MappingProfile): string {
  return `${profileSender(profile) ?? '(no sender)'} (profile ${profile.name}): ${bindingText(profile) || 'unbound'}`;
}
