import { describe, expect, it } from 'vitest';
import { focusLost } from './focus-return.js';

describe('focusLost', () => {
  const body = { tagName: 'BODY' } as unknown as Element;

  it('is lost on the page itself or nowhere', () => {
    expect(focusLost(body, body)).toBe(true);
    expect(focusLost(null, body)).toBe(true);
  });

  it('is lost on a control disabled while its action runs', () => {
    expect(focusLost({ disabled: true } as unknown as Element, body)).toBe(true);
  });

  it('is not lost on a control the admin moved to', () => {
    expect(focusLost({ disabled: false } as unknown as Element, body)).toBe(false);
    expect(focusLost({ tagName: 'A' } as unknown as Element, body)).toBe(false);
  });
});
