import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkSnomedConceptId, isVerhoeffValid, verhoeffCheckDigit } from './snomed.js';

describe('SNOMED CT concept ids (dm+d codes)', () => {
  it.each(['138875005', '22298006', '404684003', '42109611000001109', '10362601000001103', '322236009'])(
    'accepts the known-valid id %s',
    (id) => {
      expect(checkSnomedConceptId(id)).toEqual({ ok: true });
      expect(verhoeffCheckDigit(id.slice(0, -1))).toBe(Number(id.at(-1)));
    },
  );

  it.each([
    ['138875004', 'checkDigit'],
    ['42109611000001108', 'checkDigit'],
    ['1234567013', 'partition'], // a Verhoeff-valid description id (partition 01)
    ['12345', 'length'],
    ['1234567890123456789', 'length'],
    ['0138875005', 'leadingZero'],
    ['13887 5005', 'notDigits'],
    ['4.21096E+16', 'notDigits'],
  ])('refuses %s (%s)', (id, problem) => {
    expect(checkSnomedConceptId(id)).toMatchObject({ ok: false, problem });
  });

  const body = fc
    .tuple(fc.integer({ min: 1, max: 9 }), fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 2, maxLength: 14 }))
    .map(([first, rest]) => `${first}${rest.join('')}10`);

  it('catches every single-digit error and every adjacent transposition (what Verhoeff guarantees)', () => {
    fc.assert(
      fc.property(body, fc.nat(), fc.integer({ min: 1, max: 9 }), (b, at, delta) => {
        const id = `${b}${verhoeffCheckDigit(b)}`;
        expect(isVerhoeffValid(id)).toBe(true);
        const i = at % id.length;
        const changed = `${id.slice(0, i)}${(Number(id[i]) + delta) % 10}${id.slice(i + 1)}`;
        expect(isVerhoeffValid(changed)).toBe(false);
        const j = at % (id.length - 1);
        if (id[j] !== id[j + 1]) {
          const swapped = `${id.slice(0, j)}${id[j + 1]}${id[j]}${id.slice(j + 2)}`;
          expect(isVerhoeffValid(swapped)).toBe(false);
        }
      }),
    );
  });
});
