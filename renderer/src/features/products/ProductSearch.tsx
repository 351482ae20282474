import { Suspense, useId, useRef, useState, useTransition, type FormEvent } from 'react';
import type { CallOutput } from '../../../../shared/contract.js';
import type { Product } from '../../../../shared/products.js';
import { useApi } from '../../api/api-context.js';
import { settle, type Settled } from '../../api/settle.js';
import { useFocusWhenLost } from '../focus/focus-return.js';
import { ProductResults } from './ProductResults.js';

interface Search {
  searchTerm: string;
  request: Promise<Settled<CallOutput<'products.search'>>>;
}

/**
 * Anonymous product search (no sign-in needed). Render with `key={environmentId}`. `initialTerm` is filled in and
 * searched for at once (a link from elsewhere asked for it).
 */
export function ProductSearch({
  environmentId,
  onPick,
  initialTerm,
}: {
  environmentId: string;
  onPick?: (product: Product) => void;
  initialTerm?: string;
}) {
  const api = useApi();
  const inputId = useId();
  const [term, setTerm] = useState(initialTerm ?? '');
  const [search, setSearch] = useState<Search | undefined>(() =>
    initialTerm
      ? {
          searchTerm: initialTerm,
          request: settle(api.call('products.search', { environmentId, searchTerm: initialTerm })),
        }
      : undefined,
  );
  const [searching, startSearch] = useTransition();
  const submitRef = useRef<HTMLButtonElement>(null);
  // The button is disabled while the service answers: the keyboard comes back to it, not to the top of the page.
  useFocusWhenLost(searching, () => submitRef.current);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const searchTerm = term.trim();
    if (!searchTerm) return;
    startSearch(() =>
      setSearch({ searchTerm, request: settle(api.call('products.search', { environmentId, searchTerm })) }),
    );
  }

  return (
    <section aria-labelledby="products-heading" className="panel">
      <h3 id="products-heading">Product search</h3>
      <form role="search" aria-labelledby="products-heading" onSubmit={submit} className="search-form">
        <label htmlFor={inputId}>Product name or dm+d code</label>
        <input
          id={inputId}
          type="search"
          value={term}
          onChange={(event) => setTerm(event.target.value)}
          maxLength={100}
          required
          autoComplete="off"
        />
        <button type="submit" ref={submitRef} disabled={searching}>
          {searching ? 'Searching…' : 'Search'}
        </button>
      </form>
      {search ? (
        <Suspense fallback={<p role="status">Searching…</p>}>
          <ProductResults searchTerm={search.searchTerm} request={search.request} {...(onPick ? { onPick } : {})} />
        </Suspense>
      ) : null}
    </section>
  );
}
