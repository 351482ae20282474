import { LosslessNumber, isInteger, isSafeNumber, parse, stringify } from 'lossless-json';

/**
 * JSON for the Order Service wire. dm+d codes have up to 18 digits, beyond JavaScript's safe integers, yet the
 * service wants them as JSON numbers. In memory they are digit strings; these two functions are the only
 * place they turn into number tokens and back, so no code path can round them through a lossy double.
 */

const DIGITS_FIELD = 'dmdCode';

function withNumberTokens(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withNumberTokens);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    out[key] =
      key === DIGITS_FIELD && typeof inner === 'string' && /^[1-9]\d*$/.test(inner)
        ? new LosslessNumber(inner)
        : withNumberTokens(inner);
  }
  return out;
}

/** Serialises a request body, writing every `dmdCode` digit string as a JSON number token, digit for digit. */
export function toWireJson(value: unknown): string {
  const text = stringify(withNumberTokens(value));
  if (text === undefined) throw new TypeError('value cannot be serialised to JSON');
  return text;
}

/** Parses a wire body; integers beyond the safe range come back as digit strings instead of rounded numbers. */
export function parseWireJson(text: string): unknown {
  return parse(text, null, (token) => {
    if (isSafeNumber(token)) return Number(token);
    return isInteger(token) ? token.replace(/^-?0+(?=\d)/, '') : Number(token);
  });
}
