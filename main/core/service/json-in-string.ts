import { parseWireJson } from '../../../shared/wire-json.js';

/**
 * JSON written into a JSON string (`"{\"orderId\":4711}"`: a .NET action that returns
 * `JsonConvert.SerializeObject(x)`, which the framework serialises again): the object or list inside, read once.
 * Read as a string, a create so answered was in doubt, every lookup of it unreadable (so the order stayed in doubt for
 * good), and a refusal's message was its raw JSON. A string holding anything else is left as it is.
 */
export function jsonInString(value: unknown): unknown {
  if (typeof value !== 'string' || !/^\s*[{[]/.test(value)) return value;
  try {
    return parseWireJson(value);
  } catch {
    return value;
  }
}
