import { describe, expect, it } from 'vitest';
import {
  isDuplicateClinicOrderId,
  mayBeTheEarlierSend,
  wasBareConflict,
} from '../../main/core/outbox/duplicate-order.js';
import { statusToError } from '../../main/core/service/error-mapping.js';

describe('recognising the duplicate clinicOrderId rejection', () => {
  it('reads the sandbox wording, other plausible wordings and the HL7 field', () => {
    const rejected = (message: string, fields: Array<{ field: string; message: string }> = []) =>
      isDuplicateClinicOrderId({ kind: 'rejected', status: 400, message, fields });
    expect(
      rejected('duplicate clinicOrderId', [
        { field: 'prescription.clinicOrderId', message: 'clinicOrderId A-1 already exists for clinic C' },
      ]),
    ).toBe(true);
    expect(rejected('Duplicate clinic order id A-1')).toBe(true);
    expect(rejected('Validation failed', [{ field: 'Prescription.ClinicOrderId', message: 'already exists' }])).toBe(
      true,
    );
    expect(rejected('duplicate clinicOrderId', [{ field: 'ORC-2', message: 'already exists' }])).toBe(true);
  });

  it('reads it in problem details (ASP.NET Core) and as Conflict with a detail', () => {
    const answer = (status: number, body: unknown) =>
      statusToError({ kind: 'response', status, headers: {}, text: JSON.stringify(body), truncated: false }, true);
    expect(
      isDuplicateClinicOrderId(
        answer(400, {
          title: 'One or more validation errors occurred.',
          status: 400,
          errors: { 'Prescription.ClinicOrderId': ['Duplicate clinicOrderId'] },
        }),
      ),
    ).toBe(true);
    expect(
      isDuplicateClinicOrderId(
        answer(409, { title: 'Conflict', status: 409, detail: 'clinicOrderId A-1 already exists' }),
      ),
    ).toBe(true);
  });

  it('takes 409 Conflict and 422 for it too, with the same wording (services that say "conflict" for a duplicate)', () => {
    for (const status of [409, 422]) {
      expect(
        isDuplicateClinicOrderId({ kind: 'rejected', status, message: 'Duplicate clinicOrderId A-1', fields: [] }),
      ).toBe(true);
      expect(isDuplicateClinicOrderId({ kind: 'rejected', status, message: 'Conflict', fields: [] })).toBe(false);
    }
  });

  it('does not take other rejections, or other statuses, for a duplicate', () => {
    expect(
      isDuplicateClinicOrderId({
        kind: 'rejected',
        status: 400,
        message: 'invalid courier',
        fields: [{ field: 'prescription.courierCode', message: 'unknown courier XYZ' }],
      }),
    ).toBe(false);
    expect(
      isDuplicateClinicOrderId({ kind: 'rejected', status: 400, message: 'duplicate prescriber', fields: [] }),
    ).toBe(false);
    for (const status of [403, 404, 410]) {
      expect(
        isDuplicateClinicOrderId({ kind: 'rejected', status, message: 'duplicate clinicOrderId', fields: [] }),
      ).toBe(false);
    }
    expect(isDuplicateClinicOrderId({ kind: 'in-doubt', reason: 'reset', message: 'duplicate clinicOrderId' })).toBe(
      false,
    );
  });

  it('after an earlier send that may have landed, also takes a 400, 409 or 422 that names no other field', () => {
    const conflict = (fields: Array<{ field: string; message: string }> = [], message = 'Conflict') =>
      mayBeTheEarlierSend({ kind: 'rejected', status: 409, message, fields });
    expect(conflict()).toBe(true);
    expect(conflict([], 'the service answered 409 with no body')).toBe(true);
    expect(conflict([{ field: 'prescription.clinicOrderId', message: 'conflict' }])).toBe(true);
    // A refusal about something else is the rejection it says: the earlier send had the same content.
    expect(conflict([{ field: 'prescription.prescriberId', message: 'prescriber suspended' }])).toBe(false);
    // Other services' words for the duplicate (an independent service's: none names "duplicate clinicOrderId").
    for (const [status, message, fields] of [
      [400, 'Order already exists for this clinic', []],
      [400, 'ClinicOrderId must be unique', [{ field: 'prescription.clinicOrderId', message: 'must be unique' }]],
      [422, 'clinic_order_id has already been taken', []],
      [422, 'Conflict', []],
      // A 2xx whose body said it did not do it (the client reads `{"success": false}` as a refusal).
      [200, 'the service refused the order: Order already exists', []],
    ] as const) {
      expect(mayBeTheEarlierSend({ kind: 'rejected', status, message, fields: [...fields] })).toBe(true);
    }
    expect(mayBeTheEarlierSend({ kind: 'rejected', status: 404, message: 'Conflict', fields: [] })).toBe(false);
    expect(wasBareConflict({ httpStatus: 200, errorMessage: 'the service refused the order' })).toBe(true);
    expect(wasBareConflict({ httpStatus: 200, errorMessage: null })).toBe(false);
    expect(wasBareConflict({ httpStatus: 409, errorMessage: 'Duplicate clinicOrderId A-1' })).toBe(false);
    expect(mayBeTheEarlierSend({ kind: 'rejected', status: 400, message: 'Duplicate clinicOrderId', fields: [] })).toBe(
      true,
    );
  });
});
