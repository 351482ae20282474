/** The admin's theme choice, kept in localStorage and applied as `data-theme` on the root element. */

export const THEMES = ['light', 'dark', 'system'] as const;
export type Theme = (typeof THEMES)[number];

const STORAGE_KEY = 'rxbatch.theme';

export function isTheme(value: unknown): value is Theme {
  return typeof value === 'string' && (THEMES as readonly string[]).includes(value);
}

export function readTheme(storage: Pick<Storage, 'getItem'> = window.localStorage): Theme {
  try {
    const stored = storage.getItem(STORAGE_KEY);
    return isTheme(stored) ? stored : 'system';
  } catch {
    // Storage can be unavailable (a locked-down profile): follow the system.
    return 'system';
  }
}

export function saveTheme(theme: Theme, storage: Pick<Storage, 'setItem'> = window.localStorage): void {
  try {
    storage.setItem(STORAGE_KEY, theme);
  } catch {
    // Not persisted, but still applied for this session.
  }
}

/** `system` leaves the choice to the system (the stylesheet's `color-scheme: light dark`). */
export function applyTheme(theme: Theme, root: HTMLElement = document.documentElement): void {
  root.dataset.theme = theme;
}
