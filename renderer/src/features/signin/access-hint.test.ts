import { describe, expect, it } from 'vitest';
import { accessHint } from './access-hint.js';

describe('accessHint', () => {
  const now = Date.parse('2026-12-01T22:40:00Z');

  it('says a time still to come is renewed automatically', () => {
    expect(accessHint('2026-12-01T22:45:00Z', now)).toBe('(renewed automatically)');
  });

  it('says a time already past is renewed when next needed, not that the sign-in ran out', () => {
    expect(accessHint('2026-12-01T22:36:22Z', now)).toBe(
      '(passed: renewed by itself the next time the app calls the service; nothing to do)',
    );
  });
});
