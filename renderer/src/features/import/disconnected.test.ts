import { describe, expect, it } from 'vitest';
import { ContractError } from '../../../../shared/errors.js';
import { isDisconnected } from './disconnected.js';

describe('a call that failed because the link dropped', () => {
  it('is told from a call the core answered with an error', () => {
    expect(isDisconnected(new ContractError({ code: 'disconnected', message: 'Lost the connection' }))).toBe(true);
    expect(isDisconnected({ code: 'disconnected', message: 'over the bridge' })).toBe(true);
    expect(isDisconnected(new ContractError({ code: 'failed', message: 'no' }))).toBe(false);
    expect(isDisconnected(new Error('disconnected'))).toBe(false);
    expect(isDisconnected(undefined)).toBe(false);
  });
});
