/**
 * Conditions a person should hear about (the app turns them into notifications). Each is reported once per
 * condition: one event when an outage starts (not one per failed request or probe), one when sign-in is needed,
 * one per order set aside, rejected or refused.
 */
export type AttentionEvent =
  /**
   * `needsSettings`: waiting will not end it (progress.ts). `accessRefused`: the service (or something in front of
   * it) refuses every request with 403, rather than not answering.
   */
  | {
      kind: 'service-unavailable';
      environmentId: string;
      message: string;
      needsSettings?: boolean;
      accessRefused?: boolean;
    }
  | { kind: 'sign-in-required'; environmentId: string; message: string }
  | {
      kind: 'order';
      environmentId: string;
      /**
       * rejected: 400/404; locked-out: 403 (held); gave-up: a poison order set aside (held); cancel-refused;
       * not-found: a created order the service no longer finds (the status poller's flag, tracking/lost-at-service.ts);
       * listed-differently: a created order the service lists under other ids (tracking/listed-differently.ts).
       */
      reason: 'rejected' | 'locked-out' | 'gave-up' | 'cancel-refused' | 'not-found' | 'listed-differently';
      orderId: number;
      clinicCode: string;
      clinicOrderId: string;
      message: string;
      field: string | null;
    };

export type OrderAttention = Extract<AttentionEvent, { kind: 'order' }>;

/** The attention an order calls for, named by its environment, ids and clinic as the screens name it. */
export function orderAttention(
  order: { environmentId: string; id: number; clinicCode: string; clinicOrderId: string },
  reason: OrderAttention['reason'],
  message: string,
  field: string | null = null,
): OrderAttention {
  const { environmentId, id: orderId, clinicCode, clinicOrderId } = order;
  return { kind: 'order', environmentId, reason, orderId, clinicCode, clinicOrderId, message, field };
}
