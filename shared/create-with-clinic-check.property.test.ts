import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWithClinicV1Schema } from './orders.js';
import { passesCreateWithClinicV1 } from './create-with-clinic-check.js';

/**
 * The hand-written check must never call a body valid that the shared schema refuses (the import would then stage
 * an order the service rejects, with no message), and it should agree with the schema everywhere else, so the
 * schema runs only for the orders that need its messages. Generated bodies: valid ones, and each field broken in
 * every way a file can break it (missing, null, blank, padded, too long, wrong type, out of range).
 */

const RUNS = Number(process.env.FAST_SCHEMA_RUNS ?? 300);
const schemaSays = (body: unknown) => createWithClinicV1Schema.safeParse(body).success;

type Json = Record<string, unknown>;

// Text as cells hold it: printable ASCII, letters outside it, white space at either end sometimes.
const cellText = (max: number) =>
  fc.oneof(
    fc.string({ minLength: 1, maxLength: max }),
    fc.constantFrom('Ann', 'O’Brien', 'Zoë', '  padded  ', '\u00a0nbsp\u00a0', 'x'.repeat(max), 'x'.repeat(max + 1)),
  );
const validText = (max: number) =>
  fc.string({ minLength: 1, maxLength: Math.min(max, 40) }).filter((s) => s.trim() !== '');
const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const code3 = fc.constantFrom('GBR', 'IRL', 'FRA');
const date = fc.constantFrom('1980-01-15', '2000-02-29', '1999-12-31', '2024-02-29');
const dmd = fc.constantFrom('42109611000001109', '1000001000001104', '322236009', '987654321098765432');

const address = fc.record(
  {
    address1: validText(200),
    address2: optional(fc.string({ maxLength: 40 })),
    city: validText(100),
    county: optional(fc.string({ maxLength: 40 })),
    postCode: validText(16),
    countryCode: code3,
  },
  { requiredKeys: ['address1', 'city', 'postCode', 'countryCode'] },
);
const item = fc.record(
  {
    productId: optional(fc.nat()),
    dmdCode: fc.oneof(dmd, fc.integer({ min: 1, max: 2 ** 40 })),
    pack: optional(fc.integer({ min: 1, max: 1000 })),
    medication: validText(500),
    dosageInstructions: validText(1000),
    quantity: fc.integer({ min: 1, max: 10_000 }),
  },
  { requiredKeys: ['dmdCode', 'medication', 'dosageInstructions', 'quantity'] },
);
const validBody = fc.record(
  {
    customer: fc.record(
      {
        clinicAccountNumber: optional(fc.integer()),
        title: validText(20),
        firstName: validText(100),
        surname: validText(100),
        dateOfBirth: date,
        gender: validText(20),
        telephone: optional(fc.string({ maxLength: 40 })),
        email: optional(fc.string({ maxLength: 60 })),
      },
      { requiredKeys: ['title', 'firstName', 'surname', 'dateOfBirth', 'gender'] },
    ),
    homeAddress: address,
    deliveryAddress: address,
    prescription: fc.record(
      {
        clinicOrderId: validText(64),
        clinicOrderValue: optional(fc.double({ min: 0, max: 1e6, noNaN: true })),
        paymentType: validText(40),
        repeatsAllowed: optional(fc.integer({ min: 0, max: 52 })),
        courierCode: validText(20),
        currencyCode: fc.constantFrom('GBP', 'EUR'),
      },
      { requiredKeys: ['clinicOrderId', 'paymentType', 'courierCode', 'currencyCode'] },
    ),
    prescribedItems: fc.array(item, { minLength: 1, maxLength: 3 }),
    prescribingDoctor: fc.record({ registrationNumber: validText(40), prescriberName: validText(200) }),
    clinicInformation: fc.record(
      {
        clinicCode: validText(64),
        name: validText(200),
        address1: validText(200),
        address2: optional(fc.string({ maxLength: 40 })),
        address3: optional(fc.string({ maxLength: 40 })),
        address4: optional(fc.string({ maxLength: 40 })),
        postcode: validText(16),
        countryCode: code3,
        contactNumber: optional(fc.string({ maxLength: 40 })),
        contactEmail: optional(fc.string({ maxLength: 40 })),
        prescriberFeeTypeId: optional(fc.nat()),
        prescriberFee: optional(fc.double({ min: 0, max: 1000, noNaN: true })),
      },
      { requiredKeys: ['clinicCode', 'name', 'address1', 'postcode', 'countryCode'] },
    ),
    affiliateId: optional(fc.string({ maxLength: 64 })),
  },
  {
    requiredKeys: [
      'customer',
      'homeAddress',
      'deliveryAddress',
      'prescription',
      'prescribedItems',
      'prescribingDoctor',
      'clinicInformation',
    ],
  },
) as fc.Arbitrary<Json>;

/** The schema's length limits, and one past each: text of exactly those lengths, plain and padded. */
const LIMITS = [16, 20, 40, 64, 100, 200, 254, 500, 1000];
const atLimits = fc
  .tuple(fc.constantFrom(...LIMITS.flatMap((n) => [n, n + 1])), fc.boolean())
  .map(([n, padded]) => (padded ? ` ${'x'.repeat(n)} ` : 'x'.repeat(n)));

/** Every way a value can be wrong in a file or an edit. */
const brokenValue = fc.oneof(
  atLimits,
  fc.constantFrom(undefined, null, '', '   ', 0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60, true, [], {}),
  fc.constantFrom('0123', 'gbr', 'GB', '2023-02-29', '15/01/1980', '4.21096E+16', '012345'),
  cellText(300),
  fc.integer(),
  fc.double(),
);

/** Paths of every field of a body (items by index). */
function leafPaths(value: unknown, prefix: string[] = []): string[][] {
  if (value === null || typeof value !== 'object') return [prefix];
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  return [prefix, ...entries.flatMap(([key, v]) => leafPaths(v, [...prefix, key]))];
}

function withValueAt(body: Json, path: string[], value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(body);
  let target = copy as Record<string, unknown>;
  for (const key of path.slice(0, -1)) target = target[key] as Record<string, unknown>;
  const last = path.at(-1)!;
  if (value === undefined) delete target[last];
  else target[last] = value;
  return copy;
}

/** The object schemas of the v1 body, by path (items as `0`), to check that every key the schema has is checked. */
function schemaKeys(schema: z.ZodType, prefix: string[] = []): string[][] {
  const inner = schema instanceof z.ZodOptional || schema instanceof z.ZodNullable ? schema.unwrap() : schema;
  if (inner instanceof z.ZodObject) {
    return Object.entries(inner.shape as Record<string, z.ZodType>).flatMap(([key, child]) => [
      [...prefix, key],
      ...schemaKeys(child, [...prefix, key]),
    ]);
  }
  if (inner instanceof z.ZodArray) return schemaKeys(inner.element as z.ZodType, [...prefix, '0']);
  return [];
}

describe('the hand-written create-with-clinic check', () => {
  it('agrees with the shared schema on generated valid bodies', () => {
    fc.assert(
      fc.property(validBody, (body) => {
        expect(schemaSays(body)).toBe(true);
        expect(passesCreateWithClinicV1(body)).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('agrees with it when any one field (or container) is missing, null, blank, padded, too long or of a wrong type', () => {
    fc.assert(
      fc.property(
        validBody.chain((body) => fc.tuple(fc.constant(body), fc.constantFrom(...leafPaths(body)), brokenValue)),
        ([body, path, value]) => {
          const broken = withValueAt(body, path, value);
          const schema = schemaSays(broken);
          const fast = passesCreateWithClinicV1(broken);
          // Never "valid" where the schema says no; and no needless zod runs where it says yes.
          expect({ path: path.join('.'), value, fast }).toEqual({ path: path.join('.'), value, fast: schema });
        },
      ),
      { numRuns: RUNS * 3 },
    );
  });

  it('agrees with it at every field, for text at and one past each length limit, plain and padded', () => {
    const body = fc.sample(validBody, { numRuns: 1, seed: 11 })[0]!;
    const values = LIMITS.flatMap((n) => [n, n + 1]).flatMap((n) => ['x'.repeat(n), ` ${'x'.repeat(n)} `]);
    for (const path of leafPaths(body)) {
      for (const value of values) {
        const broken = withValueAt(body, path, value);
        const where = `${path.join('.')} = ${value.length} characters`;
        expect({ where, fast: passesCreateWithClinicV1(broken) }).toEqual({ where, fast: schemaSays(broken) });
      }
    }
  });

  it('checks every key the shared schema has: a value no field accepts is refused wherever it is put', () => {
    const body = fc.sample(validBody, { numRuns: 1, seed: 7 })[0]!;
    const keys = schemaKeys(createWithClinicV1Schema);
    expect(keys.length).toBeGreaterThan(45);
    for (const path of keys) {
      // An object with nothing a field needs is invalid for every field and container of the schema.
      const broken = withValueAt(body, path, { unexpected: true });
      expect({ path: path.join('.'), schema: schemaSays(broken) }).toEqual({ path: path.join('.'), schema: false });
      expect({ path: path.join('.'), fast: passesCreateWithClinicV1(broken) }).toEqual({
        path: path.join('.'),
        fast: false,
      });
    }
  });

  it('measures text after trimming, as the schema does; past a limit in UTF-16 units it leaves the count to zod', () => {
    const body = fc.sample(validBody, { numRuns: 1, seed: 3 })[0]!;
    const cases: [string[], unknown][] = [
      [['customer', 'title'], ` ${'x'.repeat(20)} `],
      [['customer', 'title'], `\u00a0${'x'.repeat(21)}`],
      [['customer', 'title'], ' \t '],
      [['customer', 'surname'], '😀'.repeat(50)],
      [['prescription', 'clinicOrderId'], '\ufeffORD-1'],
    ];
    for (const [path, value] of cases) {
      const broken = withValueAt(body, path, value);
      expect({ value, fast: passesCreateWithClinicV1(broken) }).toEqual({ value, fast: schemaSays(broken) });
    }
    // zod counts code points once a string is over its limit in units: 51 emoji are 102 units but 51 code points.
    // The check says "ask the schema", which accepts it: slower, never wrong.
    const emoji = withValueAt(body, ['customer', 'surname'], '😀'.repeat(51));
    expect(passesCreateWithClinicV1(emoji)).toBe(false);
    expect(schemaSays(emoji)).toBe(true);
  });
});
