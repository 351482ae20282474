import { z } from 'zod';

/**
 * A record of at most `max` entries: zod's record has no count of its own, and a message's 1 MB cap alone lets
 * one field hold tens of thousands of keys. The bound is kept in the schema's metadata (`maxEntries`), so the
 * contract's bounds test can see that every record has one.
 */
export function boundedRecord<V extends z.ZodType>(key: z.ZodString, value: V, max: number) {
  return z
    .record(key, value)
    .refine((record) => Object.keys(record).length <= max, { message: `at most ${max} entries` })
    .meta({ maxEntries: max });
}

/** The entry bound `boundedRecord` gave a schema, if any. */
export function maxEntriesOf(schema: z.ZodType): number | undefined {
  const meta = z.globalRegistry.get(schema) as { maxEntries?: unknown } | undefined;
  return typeof meta?.maxEntries === 'number' ? meta.maxEntries : undefined;
}
