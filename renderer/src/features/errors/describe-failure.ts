import { ContractError, serviceErrorSchema, type ServiceError } from '../../../../shared/errors.js';

/** A failure as the admin reads it: a plain sentence, the service's own words, and the fields it named. */
export interface FailureText {
  summary: string;
  detail?: string;
  fields?: Array<{ field: string; message: string }>;
}

function seconds(ms: number): string {
  const s = Math.max(1, Math.ceil(ms / 1000));
  return s === 1 ? '1 second' : `${s} seconds`;
}

function describeRetryable(error: Extract<ServiceError, { kind: 'retryable' }>): string {
  switch (error.reason) {
    case 'network':
      return 'The service could not be reached. Check the network, then try again.';
    case 'rate-limited':
      return error.retryAfterMs !== undefined
        ? `The service asked the app to slow down. Try again in ${seconds(error.retryAfterMs)}.`
        : 'The service asked the app to slow down. Try again shortly.';
    case 'unreadable-response':
      return 'The service sent an answer the app could not read. Try again.';
    case 'server':
      return 'The service is unavailable, try again.';
  }
}

export function describeServiceError(error: ServiceError): FailureText {
  const detail = error.message;
  switch (error.kind) {
    case 'auth':
      return { summary: 'Sign-in required. Sign in to this environment, then try again.', detail };
    case 'retryable':
      return { summary: describeRetryable(error), detail };
    case 'in-doubt':
      return {
        summary:
          error.reason === 'server'
            ? 'The service failed after the request reached it, so the outcome is unknown.'
            : 'No answer came back from the service in time, so the outcome is unknown.',
        detail,
      };
    case 'rejected':
      return {
        summary: error.status === 403 ? 'The service refused this request.' : 'The service rejected this request.',
        detail,
        fields: error.fields,
      };
  }
}

const CONTRACT_SUMMARIES: Record<ContractError['code'], string> = {
  'invalid-input': 'The app refused this request as invalid.',
  'unknown-call': 'This version of the screen asked for something the app does not offer.',
  forbidden: 'Not allowed.',
  internal: 'Something went wrong inside Rx Batch.',
  disconnected: 'Lost the connection to Rx Batch.',
  failed: 'That did not work.',
};

const OWN_SENTENCE = new Set<ContractError['code']>(['invalid-input', 'forbidden']);

/** Any failure a call can end in: a service error value, a contract error, or something unexpected. */
export function describeFailure(error: unknown): FailureText {
  if (error instanceof ContractError) {
    // The app's own sentence for what went wrong is the summary: a failure, or a refusal the core worded itself (a
    // profile that does not exist, a change not confirmed), where the generic "refused as invalid" or "Not allowed."
    // would hide what to do behind a heading that blames the admin's form. A schema's refusal names its fields.
    if (error.code === 'failed' || (OWN_SENTENCE.has(error.code) && !error.issues?.length && error.message.trim())) {
      return { summary: error.message };
    }
    const fields = error.issues?.map((issue) => ({ field: issue.path, message: issue.message }));
    return { summary: CONTRACT_SUMMARIES[error.code], detail: error.message, ...(fields ? { fields } : {}) };
  }
  const service = serviceErrorSchema.safeParse(error);
  if (service.success) return describeServiceError(service.data);
  return { summary: 'Something went wrong inside Rx Batch.' };
}

/**
 * A failure of one action, headed by what did not happen ("Intake did not start."). A request the core refused with
 * a sentence of its own (no fields named: a port in use, a folder it may not watch) is that sentence under the
 * heading, where "The app refused this request as invalid" would read as the admin's mistake in a form.
 */
export function describeActionFailure(headline: string, error: unknown): FailureText {
  if (
    error instanceof ContractError &&
    ((error.code === 'invalid-input' && !error.issues?.length) || error.code === 'failed')
  ) {
    return { summary: headline, detail: error.message };
  }
  return describeFailure(error);
}
