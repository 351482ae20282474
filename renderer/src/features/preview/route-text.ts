import type { RouteName } from '../../../../shared/staging-views.js';

/**
 * How a batch's orders go to the service, in the admin's words (the "Send as" choice), and the service call behind
 * each for whoever needs it, in small print under the choice rather than in it.
 */
export const ROUTE_TEXT: Record<RouteName, { label: string; serviceCall: string }> = {
  v1: {
    label: "Each order with its clinic's details (registers the clinic)",
    serviceCall: 'Service call: PUT /api/v1/Order/create-with-clinic (its version is set in Settings)',
  },
  v2: {
    label: 'Orders for clinics the service already knows',
    serviceCall: 'Service call: PUT /api/v2/Order/create',
  },
  hl7: {
    label: 'Forward the HL7 message',
    serviceCall: 'Service call: PUT /api/v2/Order/create-with-hl7message, the message as received',
  },
};
