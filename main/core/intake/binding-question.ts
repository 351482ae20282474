import type { MappingProfile } from '../model/mapping-profile.js';
import { bindingText, profileSender, type BindingKind } from '../model/sender-binding-input.js';

/**
 * The question before a sender's live-intake binding is loosened in the desktop app (docs/security.md, finding 27):
 * asked in a native dialog the page cannot draw or answer, so script in the page cannot open a sender to other
 * computers or clinics alone. Loosening is any change that lets through something the binding kept out: a list
 * cleared, or an address or clinic added to one (a binding set where there was none, or entries removed, only
 * narrows it and is not asked).
 */

export interface BindingQuestion {
  profile: string;
  sender: string;
  /** What the change lets through, before and after, in words the dialog shows as they are. */
  message: string;
}

const WHAT: Record<BindingKind, { label: string; any: string }> = {
  peers: { label: 'addresses', any: 'any computer that can reach the listener may send as it' },
  clinics: { label: 'clinics', any: 'it may order and cancel for any clinic' },
};

/** What loosening `kind` lets through, or undefined when the change keeps it as narrow or narrows it. */
function loosened(kind: BindingKind, before: readonly string[] | undefined, after: readonly string[] | undefined) {
  if (before === undefined) return undefined;
  if (after === undefined) return `no longer limited to its ${WHAT[kind].label}: ${WHAT[kind].any}`;
  const kept = new Set(before);
  const added = after.filter((entry) => !kept.has(entry));
  return added.length > 0 ? `${WHAT[kind].label} added: ${added.join(', ')}` : undefined;
}

export function bindingQuestion(before: MappingProfile, after: MappingProfile): BindingQuestion | undefined {
  const changes = (['peers', 'clinics'] as const).flatMap((kind) => loosened(kind, before[kind], after[kind]) ?? []);
  if (changes.length === 0) return undefined;
  const sender = profileSender(before) ?? before.name;
  const message = [
    `Live intake would accept more from ${sender} (profile "${before.name}"): ${changes.join('; ')}.`,
    `Now: ${bindingText(before)}.`,
    `After: ${bindingText(after) || 'unbound'}.`,
    'Only change this if the sender’s system really moved or now serves these clinics.',
  ].join('\n\n');
  return { profile: before.name, sender, message: message.slice(0, 2000) };
}
