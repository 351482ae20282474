import { describe, expect, it } from 'vitest';
import { ContractError } from '../../../../shared/errors.js';
import { describeFailure } from './describe-failure.js';

describe('describeFailure', () => {
  it('turns each service error kind into a plain sentence, keeping the service’s words as detail', () => {
    expect(describeFailure({ kind: 'auth', status: 401, message: 'token expired' })).toEqual({
      summary: 'Sign-in required. Sign in to this environment, then try again.',
      detail: 'token expired',
    });
    expect(describeFailure({ kind: 'retryable', reason: 'server', status: 503, message: 'down' }).summary).toBe(
      'The service is unavailable, try again.',
    );
    expect(
      describeFailure({ kind: 'retryable', reason: 'rate-limited', retryAfterMs: 2500, message: 'slow down' }).summary,
    ).toBe('The service asked the app to slow down. Try again in 3 seconds.');
    expect(describeFailure({ kind: 'in-doubt', reason: 'timeout', message: 'timed out' }).summary).toContain(
      'outcome is unknown',
    );
    expect(describeFailure({ kind: 'in-doubt', reason: 'server', status: 502, message: 'bad gateway' })).toEqual({
      summary: 'The service failed after the request reached it, so the outcome is unknown.',
      detail: 'bad gateway',
    });
  });

  it('lists the fields a rejection names', () => {
    const fields = [{ field: 'searchTerm', message: 'searchTerm is required' }];
    expect(describeFailure({ kind: 'rejected', status: 400, message: 'Validation failed', fields })).toEqual({
      summary: 'The service rejected this request.',
      detail: 'Validation failed',
      fields,
    });
  });

  it('explains contract errors and never shows raw internals for anything else', () => {
    const lost = new ContractError({ code: 'disconnected', message: 'Lost the connection to Rx Batch.' });
    expect(describeFailure(lost).summary).toBe('Lost the connection to Rx Batch.');
    expect(describeFailure(new Error('ECONNRESET at /home/x/secret'))).toEqual({
      summary: 'Something went wrong inside Rx Batch.',
    });
  });

  it("says a failure the app worded in the app's own sentence", () => {
    const unreachable = new ContractError({
      code: 'failed',
      message: 'Could not reach the identity server (ECONNREFUSED 127.0.0.1:1).',
    });
    expect(describeFailure(unreachable)).toEqual({
      summary: 'Could not reach the identity server (ECONNREFUSED 127.0.0.1:1).',
    });
  });

  it('says a refusal the core worded itself as the summary, and a schema refusal with its fields', () => {
    const refused = new ContractError({ code: 'invalid-input', message: 'There is no profile "EPR".' });
    expect(describeFailure(refused)).toEqual({ summary: 'There is no profile "EPR".' });
    const unconfirmed = new ContractError({
      code: 'forbidden',
      message: 'Who may send as EPR-2^CLINIC-B is unchanged: accepting more from it was not confirmed.',
    });
    expect(describeFailure(unconfirmed).summary).toBe(unconfirmed.message);
    const schema = new ContractError({
      code: 'invalid-input',
      message: 'Invalid input',
      issues: [{ path: 'peers', message: 'Too big: expected array to have <=200 items' }],
    });
    expect(describeFailure(schema)).toEqual({
      summary: 'The app refused this request as invalid.',
      detail: 'Invalid input',
      fields: [{ field: 'peers', message: 'Too big: expected array to have <=200 items' }],
    });
  });
});
