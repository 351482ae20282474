import { useId, useState } from 'react';
import { applyTheme, readTheme, saveTheme, type Theme } from './theme.js';

const LABELS: Record<Theme, string> = { light: 'Light', dark: 'Dark', system: 'Same as the system' };

/** Light, dark or the system's choice; kept on this computer and applied at once. */
export function ThemeSettings() {
  const [theme, setTheme] = useState<Theme>(readTheme);
  const name = useId();

  function choose(next: Theme) {
    setTheme(next);
    saveTheme(next);
    applyTheme(next);
  }

  return (
    <section aria-labelledby="theme-heading" className="panel">
      <h3 id="theme-heading">Appearance</h3>
      <fieldset className="choice">
        <legend>Theme</legend>
        {(Object.keys(LABELS) as Theme[]).map((option) => (
          <label key={option} className="choice-option">
            <input type="radio" name={name} checked={theme === option} onChange={() => choose(option)} />{' '}
            {LABELS[option]}
          </label>
        ))}
      </fieldset>
    </section>
  );
}
