import { RELEASED_TO_LOOK_UP_MESSAGE, type OrderStateName, type OrderSummary } from '../../../../shared/order-views.js';
import { listedDifferentlyReason, notFoundReason } from '../../../../shared/not-found-at-service.js';
import { formatDateTime } from '../format/format-date.js';
import { fieldOfPath } from '../preview/order-fields.js';
import { plainCancelRefusal } from './cancel-words.js';
import type { Tone } from './tone.js';
import { trimEndWhere } from '../../../../shared/trim-end.js';

export type { Tone } from './tone.js';

/** How a state reads: a label, whether it is fine, waiting or needs a person (shown as a word and a symbol too). */
export interface StateText {
  label: string;
  tone: Tone;
  /** One sentence on what it means. */
  meaning: string;
}

export const ORDER_STATE_TEXT: Record<OrderStateName, StateText> = {
  // Only batches an earlier version staged hold orders in this state; staged orders now wait in their batch's preview.
  ready: {
    label: 'Staged (earlier version)',
    tone: 'neutral',
    meaning:
      'Imported by an earlier version and not accepted yet: accept its batch on the Import screen; nothing is sent.',
  },
  queued: { label: 'Queued', tone: 'waiting', meaning: 'Accepted and waiting its turn to be sent.' },
  sending: { label: 'Sending', tone: 'waiting', meaning: 'Being sent to the service now.' },
  created: { label: 'Created', tone: 'good', meaning: 'The service created the order and gave it a pharmacy id.' },
  rejected: { label: 'Rejected', tone: 'attention', meaning: 'The service refused the order as sent.' },
  in_doubt: {
    label: 'In doubt',
    tone: 'waiting',
    meaning: 'Sent, but no answer came back; it is looked up before anything is sent again.',
  },
  held: {
    label: 'Held',
    tone: 'attention',
    meaning: 'Set aside for a person to decide: refused by the service, or failing while others went through.',
  },
  withdrawn: {
    label: 'Withdrawn',
    tone: 'neutral',
    meaning: 'Removed before it was sent; nothing exists at the service.',
  },
  cancel_requested: { label: 'Cancel requested', tone: 'waiting', meaning: 'A cancel is waiting to be sent.' },
  cancel_sent: { label: 'Cancel sent', tone: 'waiting', meaning: 'The service accepted the cancel; confirming.' },
  cancelled: { label: 'Cancelled', tone: 'neutral', meaning: 'The pharmacy cancelled the order.' },
  cancel_refused: { label: 'Cancel refused', tone: 'attention', meaning: 'The pharmacy refused the cancel.' },
};

/** A symbol beside each tone, so colour is never the only signal. */
export const TONE_SYMBOL: Record<Tone, string> = { good: '✓', waiting: '…', attention: '!', neutral: '·' };

export interface ProblemText {
  /** What happened, in a sentence. */
  explanation: string;
  /** What fixes it, in a sentence. */
  action: string;
  /** The button that does it, when the app can. */
  button: 'retry' | 'look-up' | null;
}

/**
 * The field a service error names, as the preview labels it (`deliveryAddress.countryCode` → Delivery country,
 * `prescribedItems.0.dmdCode` → dm+d code of item 1); a path the app has no label for stays as the service wrote it.
 */
function fieldWords(path: string): string {
  const known = fieldOfPath(path);
  if (!known) return `field ${path}`;
  const item = /^prescribedItems\.(\d+)\./.exec(path);
  return item ? `${known.label} of item ${Number(item[1]) + 1}` : known.label;
}

/** The short mark of an order flagged as no longer found at the service, beside its state in lists. */
export const NOT_FOUND_LABEL = 'Not found at the service';

/**
 * Why the service's "no such order" answers flagged a created order (main/core/tracking/lost-at-service.ts), its
 * first miss in the admin's locale; null while it is not flagged.
 */
export function lostAtServiceText(
  order: Pick<OrderSummary, 'clinicOrderId' | 'pharmacyOrderId' | 'notFoundAtService'>,
): ProblemText | null {
  const flag = order.notFoundAtService;
  if (!flag) return null;
  const reason = notFoundReason({ ...order, ...flag }, formatDateTime);
  return {
    explanation: `${reason.charAt(0).toUpperCase()}${reason.slice(1)}.`,
    action:
      'Check with the pharmacy whether it still has the order, and that this environment’s address is the service the order was sent to. It is still looked up: the flag clears by itself once the service finds it.',
    button: null,
  };
}

/** The short mark of an order the service's lookup lists under other ids, beside its state in lists. */
export const LISTED_DIFFERENTLY_LABEL = 'Listed differently at the service';

/**
 * What the service's lookup listed instead of a created order's own record (main/core/tracking/listed-differently.ts);
 * null while it lists it as it is, or not at all.
 */
export function listedDifferentlyText(
  order: Pick<OrderSummary, 'clinicOrderId' | 'pharmacyOrderId' | 'listedDifferently'>,
): ProblemText | null {
  const listed = order.listedDifferently;
  if (!listed) return null;
  const reason = listedDifferentlyReason({ ...order, listed });
  return {
    explanation: `${reason.charAt(0).toUpperCase()}${reason.slice(1)}.`,
    action:
      'Check at the service (or with the pharmacy) whether that record is this order. It is still looked up: the note clears by itself once the service lists the order under its own ids.',
    button: null,
  };
}

/**
 * Why an order needs a person (or is waiting on its own) and what to do about it: its state's reason first (a
 * rejection, a hold, a refused cancel), else the service's not finding it, or listing it under other ids.
 */
export function explainOrder(
  order: Pick<
    OrderSummary,
    'state' | 'lastError' | 'attempts' | 'clinicOrderId' | 'pharmacyOrderId' | 'notFoundAtService' | 'listedDifferently'
  >,
): ProblemText | null {
  return explainState(order) ?? lostAtServiceText(order) ?? listedDifferentlyText(order);
}

function explainState(order: Pick<OrderSummary, 'state' | 'lastError' | 'attempts'>): ProblemText | null {
  // The service's own sentence, without its full stop: ours ends the sentence it is quoted in.
  const reason = order.lastError && trimEndWhere(order.lastError.message, (char) => char === '.');
  const field = order.lastError?.field ? ` (${fieldWords(order.lastError.field)})` : '';
  switch (order.state) {
    case 'rejected':
      return {
        explanation: `The service rejected it${field}: ${reason ?? 'no reason given'}.`,
        action:
          'Correct the order in the source file and import it again, or, if the cause was on the service side (a clinic or product it did not know yet), send it again as it is.',
        button: 'retry',
      };
    case 'held':
      return {
        explanation: `Held for a person to decide${reason ? `: ${reason}` : ''}.`,
        action:
          'The service refused this patient or order (a locked-out patient is sorted out with the pharmacy), or it kept failing while others went through. When the cause is fixed, send it again.',
        button: 'retry',
      };
    case 'in_doubt':
      if (order.lastError?.message === RELEASED_TO_LOOK_UP_MESSAGE) {
        return {
          explanation:
            'Released to be sent again. A send of it once got no clear answer, so the service may have it already: the app looks it up first and sends it again only if the service does not have it.',
          action: 'Nothing to do; look it up now to settle it sooner.',
          button: 'look-up',
        };
      }
      return {
        explanation:
          'It was sent but no answer came back, so the service may or may not have it. It is never sent again blindly: the app looks it up first and creates it only if the service does not have it.',
        action: 'Nothing to do; look it up now to settle it sooner.',
        button: 'look-up',
      };
    case 'cancel_refused':
      return {
        explanation: `The pharmacy refused the cancel. ${plainCancelRefusal(reason)}`,
        action: 'The order goes ahead; contact the pharmacy if it must still be stopped.',
        button: null,
      };
    case 'queued':
      return reason
        ? {
            explanation: `Waiting to be sent again after: ${reason}.`,
            action: 'It is retried automatically; send it now to skip the wait.',
            button: 'retry',
          }
        : null;
    default:
      return null;
  }
}
