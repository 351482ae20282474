/**
 * Values frozen all the way down, and known to be: the parses of stored rows the store shares between callers
 * (store/parsed-rows.ts: an environment's code lists, the mapping profiles). What is derived from such a value
 * alone (a compiled profile, whether its text holds U+FFFD) can be kept beside it, by identity, since it can never
 * change; the intake reads them for every message.
 */

const DEEP_FROZEN = new WeakSet<object>();

/** Freezes `value` and everything it holds, and notes each object so frozen (see `isDeepFrozen`). */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    const children: unknown[] = Object.values(value);
    for (const child of children) deepFreeze(child);
    // An object frozen before (not by this) may hold mutable ones: then neither it nor what holds it is noted.
    if (children.every((child) => child === null || typeof child !== 'object' || DEEP_FROZEN.has(child))) {
      DEEP_FROZEN.add(value);
    }
  }
  return value;
}

/** Whether `value` was frozen with everything in it by `deepFreeze` (an object frozen otherwise may hold mutable ones). */
export function isDeepFrozen(value: unknown): value is object {
  return value !== null && typeof value === 'object' && DEEP_FROZEN.has(value);
}

/**
 * What `derive` makes of a deep-frozen value, made once per value; for any other value, made at each call (it
 * could change between calls).
 */
export function derivedOnce<K, V>(cache: WeakMap<object, V>, value: K, derive: (value: K) => V): V {
  if (!isDeepFrozen(value)) return derive(value);
  const kept = cache.get(value);
  if (kept !== undefined) return kept;
  const made = derive(value);
  cache.set(value, made);
  return made;
}
