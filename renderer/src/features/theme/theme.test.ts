import { describe, expect, it } from 'vitest';
import { readTheme, saveTheme } from './theme.js';

function memoryStorage(initial: Record<string, string> = {}) {
  const values = new Map(Object.entries(initial));
  return {
    getItem: (key: string) => values.get(key) ?? null,
    setItem: (key: string, value: string) => void values.set(key, value),
    values,
  };
}

describe('theme preference', () => {
  it('follows the system until the admin chooses, then remembers the choice', () => {
    const storage = memoryStorage();
    expect(readTheme(storage)).toBe('system');
    saveTheme('dark', storage);
    expect(readTheme(storage)).toBe('dark');
  });

  it('ignores a stored value it does not know and storage that refuses access', () => {
    expect(readTheme(memoryStorage({ 'rxbatch.theme': 'purple' }))).toBe('system');
    const refusing = {
      getItem: () => {
        throw new Error('denied');
      },
    };
    expect(readTheme(refusing)).toBe('system');
  });
});
