import { describe, expect, it } from 'vitest';
import { noMatchHint } from './no-match-hint.js';

describe('noMatchHint', () => {
  it('does not send the admin hunting for a typo in a well-formed code the service does not list', () => {
    const hint = noMatchHint('42109611000001109');
    expect(hint).toContain("this service's catalogue does not list it");
    expect(hint).not.toMatch(/check (all|its) .*digits/);
  });

  it('says what is wrong with a code that cannot be whole', () => {
    // A code cut short, as a spreadsheet's number format leaves it.
    expect(noMatchHint('421096110000011')).toBe(
      "This is not a whole dm+d code (partition '01' (the 2nd and 3rd digits from the end) is not a concept's " +
        "('00' or '10')), and a code is found only whole: check its digits, or search by the product's name.",
    );
    expect(noMatchHint('12345')).toContain('a dm+d code is 6 to 18 digits long, not 5');
    expect(noMatchHint('322236008')).toContain('Verhoeff check digit');
  });

  it('names a word to try for a name of several words', () => {
    expect(noMatchHint('paracetamol soluble')).toContain('“paracetamol”');
  });
});
