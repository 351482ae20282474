import type { OrderStateName } from '../../../../shared/order-views.js';
import { DISPATCHED_STATUSES } from '../../../../shared/status.js';
import type { Tone } from './tone.js';

/**
 * Why a cancel did not happen, in plain words, from the reason the app or the service gave (the technical text
 * stays in the order's timeline and the log). One sentence, ending in a full stop.
 */
export function plainCancelRefusal(reason: string | null | undefined): string {
  const text = (reason ?? '').trim();
  if (!text) return 'No reason was given.';
  const dispatched = DISPATCHED_STATUSES.find((status) => text.includes(status));
  if (dispatched)
    return `It has already gone out (the service shows “${dispatched}”), and a dispatched order cannot be cancelled.`;
  if (/already cancelled/i.test(text)) return 'It was already cancelled.';
  if (/already withdrawn/i.test(text)) return 'It was already withdrawn.';
  if (/not yet dispatched/i.test(text)) return 'It has already gone out, and a dispatched order cannot be cancelled.';
  const sentence = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}

export interface CancelOutcomeText {
  tone: Tone;
  /** Short: what happened so far. */
  label: string;
  /** What it means, or why not. */
  detail: string;
  /** Nothing more will happen by itself. */
  final: boolean;
}

/**
 * What a cancel has come to, from the order's state now (followed live after the request): the dialog shows
 * this, never the request's first answer once the order has moved on.
 */
export function cancelOutcome(state: OrderStateName, refusal: string | null | undefined): CancelOutcomeText {
  switch (state) {
    case 'withdrawn':
      return {
        tone: 'good',
        label: 'Withdrawn',
        detail: 'It had not been sent, so nothing exists at the service.',
        final: true,
      };
    case 'cancel_requested':
      return {
        tone: 'waiting',
        label: 'Cancel requested',
        detail: 'Waiting to be sent to the pharmacy (it goes when the service answers).',
        final: false,
      };
    case 'cancel_sent':
      return {
        tone: 'waiting',
        label: 'Cancel sent',
        detail: 'The service took the cancel; waiting for the pharmacy to confirm it.',
        final: false,
      };
    case 'cancelled':
      return { tone: 'good', label: 'Cancelled', detail: 'The pharmacy cancelled the order.', final: true };
    case 'cancel_refused':
      return { tone: 'attention', label: 'Cancel refused', detail: plainCancelRefusal(refusal), final: true };
    default:
      return { tone: 'attention', label: 'Not cancelled', detail: plainCancelRefusal(refusal), final: true };
  }
}
