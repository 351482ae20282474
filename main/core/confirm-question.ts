import { z } from 'zod';
import type { EnvironmentIdentity } from './environments/registry.js';
import type { BindingQuestion } from './intake/binding-question.js';
import type { RetentionQuestion } from './retention-question.js';

/**
 * The questions the desktop app asks in a native dialog the page cannot draw or answer, before a change script in
 * the page must not make alone: adding or re-pointing an environment (docs/security.md, finding 1), removing one,
 * a shorter retention time (finding 21), a looser sender binding (finding 27). The core words each one; the shell
 * only shows it (Cancel the default, `confirmLabel` the other button) and answers true to go ahead. Zod and types
 * only at run time: the shell's protocol (host-protocol.ts) parses with this schema.
 */

/** Each field's length: room for the longest the core words (names ≤ 80, URLs ≤ 300, messages ≤ 2000). */
export const CONFIRM_LIMITS = { title: 200, message: 500, detail: 4000, confirmLabel: 100 } as const;

export const confirmQuestionSchema = z
  .object({
    kind: z.enum(['identity-change', 'removal', 'retention', 'binding-change']),
    /** The dialog's title bar. */
    title: z.string().min(1).max(CONFIRM_LIMITS.title),
    /** The question itself, in bold. */
    message: z.string().min(1).max(CONFIRM_LIMITS.message),
    /** What going ahead does, under it. */
    detail: z.string().max(CONFIRM_LIMITS.detail),
    /** The button that goes ahead. */
    confirmLabel: z.string().min(1).max(CONFIRM_LIMITS.confirmLabel),
  })
  .strict();
export type ConfirmQuestion = z.infer<typeof confirmQuestionSchema>;

/** Cut to the limits, so the shell never refuses a question the core asks (and the call waits for no answer). */
function fit(question: ConfirmQuestion): ConfirmQuestion {
  return {
    kind: question.kind,
    title: question.title.slice(0, CONFIRM_LIMITS.title),
    message: question.message.slice(0, CONFIRM_LIMITS.message),
    detail: question.detail.slice(0, CONFIRM_LIMITS.detail),
    confirmLabel: question.confirmLabel.slice(0, CONFIRM_LIMITS.confirmLabel),
  };
}

/** A new environment (no `before`) or an edit that changes one's identity. */
export interface IdentityChange {
  name: string;
  before?: EnvironmentIdentity;
  after: EnvironmentIdentity;
}

/** Before an environment is added or its API origin, issuer, client id or grant change: each change shown. */
export function identityChangeQuestion({ name, before: was, after: now }: IdentityChange): ConfirmQuestion {
  const rows = [
    ['Order Service', was?.apiOrigin, now.apiOrigin],
    ['Identity server', was?.issuer, now.issuer],
    ['Client id', was && (was.clientId || '(none)'), now.clientId || '(none)'],
    ['Sign-in', was?.grant, now.grant],
  ] as const;
  const lines = was
    ? rows.filter(([, old, next]) => old !== next).map(([label, old, next]) => `${label}: ${old} → ${next}`)
    : rows.map(([label, , next]) => `${label}: ${next}`);
  return fit({
    kind: 'identity-change',
    title: was ? 'Change where this environment connects?' : 'Add this environment?',
    message: was ? `Change where "${name}" connects?` : `Add "${name}"?`,
    detail:
      `${lines.join('\n')}\n\n` +
      (was
        ? 'Rx Batch will sign this environment out and delete its saved sign-in and client secret, so nothing of ' +
          'them reaches the new address. You will sign in again (and type the client secret again). Queued orders ' +
          'wait until you resume sending.'
        : 'Orders accepted into this environment are sent to this Order Service. Add it only if your supplier ' +
          'account is there.'),
    confirmLabel: was ? 'Change and sign out' : 'Add environment',
  });
}

/** Before an environment is removed; `message` says what removing it does (environment-removal.ts). */
export function removalQuestion(name: string, message: string): ConfirmQuestion {
  return fit({
    kind: 'removal',
    title: 'Remove this environment?',
    message: `Remove "${name}"?`,
    detail: message,
    confirmLabel: 'Remove environment',
  });
}

/** Before imported file copies are kept for fewer days, with what that drops (retention-question.ts). */
export function retentionConfirmQuestion(question: RetentionQuestion): ConfirmQuestion {
  const days = `${question.days} ${question.days === 1 ? 'day' : 'days'}`;
  return fit({
    kind: 'retention',
    title: 'Keep imported file copies for less time?',
    message: `Keep imported file copies for ${days} only?`,
    detail: question.message,
    confirmLabel: `Keep them ${days}`,
  });
}

/** Before live intake accepts more from a sender, with what the change lets through (binding-question.ts). */
export function bindingConfirmQuestion(question: BindingQuestion): ConfirmQuestion {
  return fit({
    kind: 'binding-change',
    title: 'Accept more from this sender?',
    message: `Accept more from ${question.sender}?`,
    detail: question.message,
    confirmLabel: 'Change who may send',
  });
}
