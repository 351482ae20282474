import { useEffect, useRef, useState } from 'react';
import { localDatePattern, readTypedDate, writeTypedDate } from './format-date.js';

/**
 * A date typed as text in the admin's locale (or as ISO), one Tab stop: Chromium's `type="date"` makes day, month
 * and year three stops and shows its own format. `value` and `onChange` carry `YYYY-MM-DD`, or '' when the field is
 * empty or does not hold a real date; in that case the field says so and its form will not submit.
 */
export function DateField({
  id,
  value,
  onChange,
  required = false,
}: {
  id: string;
  value: string;
  onChange: (isoDate: string) => void;
  required?: boolean;
}) {
  const pattern = localDatePattern;
  const [text, setText] = useState(() => (value ? writeTypedDate(value, pattern) : ''));
  const emitted = useRef(value);
  const input = useRef<HTMLInputElement>(null);
  const invalid = text.trim() !== '' && readTypedDate(text, pattern) === undefined;

  // A value set from outside (a "Clear filters" button) replaces what was typed.
  useEffect(() => {
    if (value === emitted.current) return;
    emitted.current = value;
    setText(value ? writeTypedDate(value, pattern) : '');
  }, [value, pattern]);

  useEffect(() => {
    input.current?.setCustomValidity(invalid ? `Not a date: write it as ${pattern.hint}.` : '');
  }, [invalid, pattern]);

  return (
    <>
      <input
        ref={input}
        id={id}
        type="text"
        inputMode="numeric"
        autoComplete="off"
        value={text}
        required={required}
        aria-invalid={invalid || undefined}
        aria-describedby={`${id}-format`}
        onChange={(event) => {
          const typed = event.target.value;
          setText(typed);
          const next = readTypedDate(typed, pattern) ?? '';
          emitted.current = next;
          onChange(next);
        }}
      />
      <span id={`${id}-format`} className={invalid ? 'hint bad' : 'hint'}>
        {invalid ? `Not a date: write it as ${pattern.hint}` : pattern.hint}
      </span>
    </>
  );
}
