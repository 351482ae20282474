/**
 * The contract's answer keys, as the shared schemas spell them. A service serialising its models with their own
 * names (.NET's PascalCase, `{"OrderId": 5001}`, as Newtonsoft and a naming policy of null write them) is read as
 * if it had written these: .NET's own readers match names without case, and so do the service's clients. Before, a
 * create so answered was in doubt, and its lookup's records read with every field empty, so no order was ever
 * settled.
 */
const CONTRACT_KEYS = [
  // create, status records (shared/orders.ts, shared/status.ts)
  'orderId',
  'clinicOrderId',
  'pharmacyOrderId',
  'orderStatus',
  'dispatchDate',
  'trackingId',
  'cancelReason',
  'clinicCode',
  // products and couriers (shared/products.ts, shared/couriers.ts)
  'productId',
  'dmdCode',
  'name',
  'packSize',
  'form',
  'strength',
  'inStock',
  'totalPacks',
  'unitPrice',
  'totalPrice',
  'currencyCode',
  'courierCode',
  'deliveryOption',
  'price',
  // the error envelope and a 2xx's refusal (shared/errors.ts, client.ts)
  'error',
  'status',
  'details',
  'field',
  'message',
  'detail',
  'success',
  'ok',
  'succeeded',
] as const;

const BY_LOWER = new Map<string, string>(CONTRACT_KEYS.map((key) => [key.toLowerCase(), key]));

/** Deep enough for a list of records and an envelope's field errors; answers nest no further. */
const MAX_DEPTH = 3;

/**
 * The answer with each key that matches a contract key but for case renamed to it, when it is the only spelling of
 * that name in its object: two spellings side by side are left as they are (the schema reads the contract's one if
 * it is there, else neither, and a create is then in doubt). Anything not an object or a list comes back as it is.
 */
export function withContractKeys(value: unknown, depth = 0): unknown {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => withContractKeys(item, depth + 1));
  const source = value as Record<string, unknown>;
  const keys = Object.keys(source);
  const spellings = new Map<string, number>();
  for (const key of keys) spellings.set(key.toLowerCase(), (spellings.get(key.toLowerCase()) ?? 0) + 1);
  let changed = false;
  const entries = Object.entries(source).map(([key, inner]): [string, unknown] => {
    const known = BY_LOWER.get(key.toLowerCase());
    // Only a key that is the one spelling of its name: two ("OrderId" and "ORDERID") leave which holds unknown.
    const name = known !== undefined && spellings.get(key.toLowerCase()) === 1 ? known : key;
    const read = withContractKeys(inner, depth + 1);
    if (name !== key || read !== inner) changed = true;
    return [name, read];
  });
  if (!changed) return value;
  const out: Record<string, unknown> = {};
  // defineProperty, so that a key such as "__proto__" stays a plain key.
  for (const [name, read] of entries) {
    Object.defineProperty(out, name, { value: read, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
