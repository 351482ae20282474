import { serviceErrorSchema } from '../../../../shared/errors.js';
import { describeFailure, type FailureText } from '../errors/describe-failure.js';

/**
 * What went wrong with a stock and price check, once: the two questions go to the service together, so a code it
 * does not know, a sign-in it wants or an outage fails both alike, and saying it twice reads as two problems.
 * A code the service does not know (404) is said in words, with what to try.
 */
export function stockPriceFailures(dmdCode: string, failures: readonly unknown[]): FailureText[] {
  const texts: FailureText[] = [];
  const seen = new Set<string>();
  for (const failure of failures) {
    if (failure === undefined) continue;
    const text = unknownProduct(dmdCode, failure) ?? describeFailure(failure);
    const key = JSON.stringify([text.summary, text.detail ?? '', text.fields ?? []]);
    if (seen.has(key)) continue;
    seen.add(key);
    texts.push(text);
  }
  return texts;
}

function unknownProduct(dmdCode: string, failure: unknown): FailureText | undefined {
  const error = serviceErrorSchema.safeParse(failure);
  if (!error.success || error.data.kind !== 'rejected' || error.data.status !== 404) return undefined;
  return {
    summary: `No product has dm+d code ${dmdCode} at this service. Check the digits, or search for the product by name above and use “Check stock and price” on its row.`,
    // The service's own words, marked as such: under the sentence above they read as a second problem otherwise.
    detail: `The service said: ${error.data.message}`,
  };
}
