import type { CodeLists } from '../../../shared/environment.js';
import type { OrderRoute } from '../store/order-state.js';

/**
 * The courier an order was sent with, as the code lists' v1 text (`RMT24`), read from its stored request body:
 * v1 names it; v2 gives the environment's integer, read back through its `v2CourierCode` list; an HL7 message
 * does not say. Null when unknown, and the screens then show a tracking id as plain text.
 */
export function courierCodeOf(
  route: OrderRoute,
  requestBody: string,
  codeLists: Pick<CodeLists, 'v2CourierCode'> | undefined,
): string | null {
  if (route === 'hl7') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(requestBody);
  } catch {
    return null;
  }
  const code = (parsed as { prescription?: { courierCode?: unknown } } | null)?.prescription?.courierCode;
  if (route === 'v1') return typeof code === 'string' && code.trim() !== '' ? code.trim().slice(0, 20) : null;
  if (typeof code !== 'number' || !codeLists) return null;
  const named = Object.entries(codeLists.v2CourierCode).filter(([, value]) => value === code);
  // Two names for one integer cannot be told apart: better no link than the wrong courier's page.
  return named.length === 1 ? named[0]![0].slice(0, 20) : null;
}
