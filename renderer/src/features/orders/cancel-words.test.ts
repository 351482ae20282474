import { describe, expect, it } from 'vitest';
import { cancelOutcome, plainCancelRefusal } from './cancel-words.js';

describe('cancel outcomes in plain words', () => {
  it('says a dispatched order has gone out, naming the status once', () => {
    const text = plainCancelRefusal(
      'The order cannot be cancelled. message: order 1042 is "Prescription Dispatched"; only orders not yet dispatched can be cancelled',
    );
    expect(text).toBe(
      'It has already gone out (the service shows “Prescription Dispatched”), and a dispatched order cannot be cancelled.',
    );
    expect(
      plainCancelRefusal(
        'the service shows it as "Prescription Processed": only orders not yet dispatched can be cancelled',
      ),
    ).toContain('“Prescription Processed”');
  });

  it('reads the app’s own refusals as sentences', () => {
    expect(plainCancelRefusal('it is already cancelled')).toBe('It was already cancelled.');
    expect(plainCancelRefusal('a cancel request for it is already waiting to be sent')).toBe(
      'A cancel request for it is already waiting to be sent.',
    );
    expect(plainCancelRefusal(null)).toBe('No reason was given.');
  });

  it('follows the order: requested and sent are not final, cancelled and refused are', () => {
    expect(cancelOutcome('cancel_requested', null)).toMatchObject({ label: 'Cancel requested', final: false });
    expect(cancelOutcome('cancel_sent', null)).toMatchObject({ label: 'Cancel sent', final: false, tone: 'waiting' });
    expect(cancelOutcome('cancelled', null)).toMatchObject({ label: 'Cancelled', final: true, tone: 'good' });
    expect(cancelOutcome('cancel_refused', 'order 7 is already cancelled')).toEqual({
      tone: 'attention',
      label: 'Cancel refused',
      detail: 'It was already cancelled.',
      final: true,
    });
    // Refused at the request (the order never moved): not cancelled, with why.
    expect(cancelOutcome('created', 'the service shows it as "Prescription Dispatched"')).toMatchObject({
      label: 'Not cancelled',
      tone: 'attention',
    });
  });
});
