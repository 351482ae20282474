import { useEffect, useRef, useState } from 'react';
import { dateInWords, readTypedDate, TYPED_DATE_HINT, TYPED_DATE_PATTERN, writeTypedDate } from './format-date.js';

/**
 * A date typed as text, day first or as ISO (`TYPED_DATE_PATTERN`), one Tab stop: Chromium's `type="date"` makes
 * day, month and year three stops and shows the browser's format. `value` and `onChange` carry `YYYY-MM-DD`, or ''
 * when the field is empty or does not hold a real date; in that case the field says so and its form will not
 * submit. A date it reads is said back with its month's name, so the admin sees the day the filter will use.
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
  const pattern = TYPED_DATE_PATTERN;
  const [text, setText] = useState(() => (value ? writeTypedDate(value, pattern) : ''));
  const emitted = useRef(value);
  const input = useRef<HTMLInputElement>(null);
  const read = text.trim() === '' ? undefined : readTypedDate(text, pattern);
  const invalid = text.trim() !== '' && read === undefined;

  // A value set from outside (a "Clear filters" button) replaces what was typed.
  useEffect(() => {
    if (value === emitted.current) return;
    emitted.current = value;
    setText(value ? writeTypedDate(value, pattern) : '');
  }, [value, pattern]);

  useEffect(() => {
    input.current?.setCustomValidity(invalid ? `Not a date: write it as ${TYPED_DATE_HINT}.` : '');
  }, [invalid]);

  return (
    <>
      <input
        ref={input}
        id={id}
        className="date-input"
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
      <span id={`${id}-format`} className={invalid ? 'hint date-hint bad' : 'hint date-hint'}>
        {invalid ? `Not a date: write it as ${TYPED_DATE_HINT}` : read ? dateInWords(read) : TYPED_DATE_HINT}
      </span>
    </>
  );
}
