import { describe, expect, it } from 'vitest';
import {
  bindingConfirmQuestion,
  confirmQuestionSchema,
  identityChangeQuestion,
  removalQuestion,
  retentionConfirmQuestion,
} from './confirm-question.js';

/**
 * The wording of the desktop's native confirmations, as the admin reads it: the core builds it and the shell shows
 * it as it is (test/electron/dialogs.test.ts askConfirm), so what each dialog says is checked here.
 */

const identity = {
  apiOrigin: 'https://orderservice.cloudrx.co.uk',
  issuer: 'https://is4.cloudrx.co.uk',
  clientId: 'c1',
  grant: 'client_credentials' as const,
};

describe('the questions the desktop app confirms natively', () => {
  it('a re-pointed environment: only the changed addresses, and that it is signed out', () => {
    const question = identityChangeQuestion({
      name: 'CloudRx production',
      before: identity,
      after: { ...identity, apiOrigin: 'https://orders.elsewhere.example' },
    });
    expect(question).toMatchObject({
      kind: 'identity-change',
      title: 'Change where this environment connects?',
      message: 'Change where "CloudRx production" connects?',
      confirmLabel: 'Change and sign out',
    });
    expect(question.detail).toContain(
      'Order Service: https://orderservice.cloudrx.co.uk → https://orders.elsewhere.example',
    );
    expect(question.detail).not.toContain('Identity server:');
    expect(question.detail).toContain('sign this environment out');
    expect(confirmQuestionSchema.parse(question)).toEqual(question);
  });

  it('a new environment: every address it will use', () => {
    const question = identityChangeQuestion({
      name: 'Supplier',
      after: { apiOrigin: 'https://orders.example', issuer: 'https://id.example', clientId: '', grant: 'device' },
    });
    expect(question).toMatchObject({
      kind: 'identity-change',
      title: 'Add this environment?',
      message: 'Add "Supplier"?',
      confirmLabel: 'Add environment',
    });
    expect(question.detail).toBe(
      'Order Service: https://orders.example\nIdentity server: https://id.example\nClient id: (none)\nSign-in: device' +
        '\n\nOrders accepted into this environment are sent to this Order Service. Add it only if your supplier ' +
        'account is there.',
    );
  });

  it('a removal, a shorter retention and a looser binding: the core’s message as the detail', () => {
    expect(removalQuestion('Staging', 'Removing Staging signs it out. It has no orders.')).toEqual({
      kind: 'removal',
      title: 'Remove this environment?',
      message: 'Remove "Staging"?',
      detail: 'Removing Staging signs it out. It has no orders.',
      confirmLabel: 'Remove environment',
    });
    const retention = { days: 30, previousDays: 90, message: 'The copies of 2 finished orders are dropped.' };
    expect(retentionConfirmQuestion(retention)).toEqual({
      kind: 'retention',
      title: 'Keep imported file copies for less time?',
      message: 'Keep imported file copies for 30 days only?',
      detail: retention.message,
      confirmLabel: 'Keep them 30 days',
    });
    expect(retentionConfirmQuestion({ ...retention, days: 1 })).toMatchObject({
      message: 'Keep imported file copies for 1 day only?',
      confirmLabel: 'Keep them 1 day',
    });
    const binding = { profile: 'EPR', sender: 'EPR-2^CLINIC-B', message: 'addresses added: 10.9.0.0/16.' };
    expect(bindingConfirmQuestion(binding)).toEqual({
      kind: 'binding-change',
      title: 'Accept more from this sender?',
      message: 'Accept more from EPR-2^CLINIC-B?',
      detail: binding.message,
      confirmLabel: 'Change who may send',
    });
  });

  it('is cut to what the shell accepts, never longer', () => {
    const question = removalQuestion('x'.repeat(1000), 'y'.repeat(10_000));
    expect(confirmQuestionSchema.safeParse(question).success).toBe(true);
    expect(question.message.startsWith('Remove "xxx')).toBe(true);
  });
});
