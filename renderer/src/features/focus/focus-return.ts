import { useEffect, useRef } from 'react';

/**
 * Whether the keyboard has nowhere to be: on the page itself, or on a control that is disabled. A button disabled
 * while its action runs, or removed once it is done, drops focus onto the page, and Tab starts again at the top.
 */
export function focusLost(active: Element | null, body: Element | null): boolean {
  if (active === null || active === body) return true;
  return (active as Partial<HTMLButtonElement>).disabled === true;
}

/**
 * After an action ends (each time `when` changes: a busy flag, an outcome), puts the keyboard on what `target`
 * names, such as the button again or the step the action led to; only when focus is lost, never taking it from
 * where the admin has moved it meanwhile. Nothing happens on the first render.
 */
export function useFocusWhenLost(
  when: unknown,
  target: () => HTMLElement | null | undefined,
  options?: FocusOptions,
): void {
  const last = useRef(when);
  useEffect(() => {
    if (Object.is(last.current, when)) return;
    last.current = when;
    if (focusLost(document.activeElement, document.body)) target()?.focus(options);
  });
}
