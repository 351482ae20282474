import { useCallback, useEffect, useState } from 'react';

export interface Loaded<T> {
  value: T | undefined;
  error: unknown;
  loading: boolean;
  /** Loads again, keeping the current value on screen meanwhile. */
  reload: () => void;
}

/**
 * Runs `load` (memoise it with useCallback) on mount, whenever it changes and on `reload()`; an answer that
 * arrives after a newer request started is dropped, so a slow old answer never overwrites a newer one.
 */
export function useLoad<T>(load: () => Promise<T>): Loaded<T> {
  const [state, setState] = useState<{ value: T | undefined; error: unknown; loading: boolean }>({
    value: undefined,
    error: undefined,
    loading: true,
  });
  const [version, setVersion] = useState(0);

  useEffect(() => {
    let current = true;
    load().then(
      (value) => {
        if (current) setState({ value, error: undefined, loading: false });
      },
      (error: unknown) => {
        if (current) setState((s) => ({ ...s, error, loading: false }));
      },
    );
    return () => {
      current = false;
    };
  }, [load, version]);

  const reload = useCallback(() => {
    setState((s) => ({ ...s, loading: true }));
    setVersion((v) => v + 1);
  }, []);
  return { ...state, reload };
}
