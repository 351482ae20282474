import { describe, expect, it } from 'vitest';
import { trimEndWhere } from '../../../shared/trim-end.js';
import { codeKey } from './sex-codes.js';
import { emailReason } from './uk-rules.js';
import { convertValue } from './value-conversion.js';

// A value a hostile file or MLLP message can hold (up to the 1 MiB message limit), built so that a pattern whose
// parts overlap tries every split of it: each of these took seconds to minutes on the core's thread (one email of
// 128 KB held the intake's loop for 9.7 s). Read in one pass now, each test ends long before vitest's own timeout.

const MB = 1 << 20;
const TODAY = new Date('2026-12-07T00:00:00Z');

describe('values built to make a pattern backtrack', () => {
  it('an email address: refused as too long, and the pattern still tells addresses apart', () => {
    expect(emailReason(`a@${'a.'.repeat(MB / 2)}@`)).toBe('is longer than an email address can be (254 characters)');
    expect(emailReason(`a@${'a.'.repeat(120)}@`)).toBe('is not an email address');
    for (const good of ['alex@example.test', 'a@b.co', 'first.last+tag@mail.example.org']) {
      expect(emailReason(good), good).toBeUndefined();
    }
    for (const bad of ['a@b', 'a@b.', 'a@.b', 'a@b..c', 'a b@c.d', '@b.c', 'a@@b.c']) {
      expect(emailReason(bad), bad).toBe('is not an email address');
    }
  });

  it('a number: a megabyte of digits with a letter at the end is refused, a decimal still read', () => {
    const converted = convertValue(`${'1'.repeat(MB)}x`, 'number', undefined, TODAY);
    expect(converted.ok).toBe(false);
    expect(convertValue('24.50', 'number', undefined, TODAY)).toEqual({ ok: true, value: 24.5 });
    expect(convertValue('.5', 'number', undefined, TODAY)).toEqual({ ok: true, value: 0.5 });
    expect(convertValue('3.', 'number', undefined, TODAY)).toEqual({ ok: true, value: 3 });
  });

  it('a code: trailing dots are cut in one pass, whatever comes before them', () => {
    expect(codeKey(`F${'.'.repeat(MB)}`)).toBe('f');
    expect(codeKey(`${'.'.repeat(MB)}x`)).toBe(`${'.'.repeat(MB)}x`);
    expect(trimEndWhere(' Male. .', (char) => char === '.' || char === ' ')).toBe(' Male');
    expect(trimEndWhere('...', (char) => char === '.')).toBe('');
  });
});
