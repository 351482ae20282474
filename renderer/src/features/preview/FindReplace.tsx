import { useRef, useState } from 'react';
import type { BatchView } from '../../../../shared/staging-views.js';
import { useApi } from '../../api/api-context.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { useFocusWhenLost } from '../focus/focus-return.js';
import { ORDER_FIELDS } from './order-fields.js';

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-GB')} ${n === 1 ? one : many}`;

interface Search {
  field: string;
  find: string;
  replace: string;
  match: 'exact' | 'contains';
}

type Outcome =
  | { kind: 'preview'; search: Search; cells: number; orders: number }
  | { kind: 'done'; cells: number; orders: number }
  | { kind: 'error'; error: unknown };

/**
 * Find and replace on one column across the whole batch, in two steps: the core first counts the cells and orders
 * it would change (a dry run: nothing written), and only "Replace N cells" changes them (each order re-validated;
 * one undo takes all of it back).
 */
export function FindReplace({ batch, onReplaced }: { batch: BatchView; onReplaced: () => void }) {
  const api = useApi();
  const [column, setColumn] = useState('courierCode');
  const [find, setFind] = useState('');
  const [replace, setReplace] = useState('');
  const [match, setMatch] = useState<'exact' | 'contains'>('exact');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>();
  const submitRef = useRef<HTMLButtonElement>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);
  // The count leads to "Replace N cells"; replacing, cancelling or a count of none back to "Replace all…".
  useFocusWhenLost(busy ? 'busy' : outcome, () => confirmRef.current ?? submitRef.current);

  const search: Search = { field: column, find, replace, match };
  const changeSearch = <T,>(set: (value: T) => void) => {
    return (value: T) => {
      set(value);
      // A count is for the search it was made for: changing the search asks again.
      setOutcome((current) => (current?.kind === 'preview' ? undefined : current));
    };
  };

  async function preview() {
    setBusy(true);
    try {
      const result = await api.call('batches.replace', { batchId: batch.id, ...search, dryRun: true });
      setOutcome({ kind: 'preview', search, cells: result.cells, orders: result.changed });
    } catch (error) {
      setOutcome({ kind: 'error', error });
    } finally {
      setBusy(false);
    }
  }

  async function apply(confirmed: Search) {
    setBusy(true);
    try {
      const result = await api.call('batches.replace', { batchId: batch.id, ...confirmed });
      setOutcome({ kind: 'done', cells: result.cells, orders: result.changed });
      onReplaced();
    } catch (error) {
      setOutcome({ kind: 'error', error });
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="find-replace-heading" className="find-replace">
      <h4 id="find-replace-heading">Find and replace</h4>
      <form
        className="search-form"
        onSubmit={(event) => {
          event.preventDefault();
          void preview();
        }}
      >
        <label>
          Column{' '}
          <select value={column} onChange={(event) => changeSearch(setColumn)(event.target.value)}>
            {ORDER_FIELDS.map((field) => (
              <option key={field.column} value={field.column}>
                {field.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Find <input value={find} onChange={(event) => changeSearch(setFind)(event.target.value)} />
        </label>
        <label>
          Replace with <input value={replace} onChange={(event) => changeSearch(setReplace)(event.target.value)} />
        </label>
        <label>
          Match{' '}
          <select
            value={match}
            onChange={(event) => changeSearch(setMatch)(event.target.value as 'exact' | 'contains')}
          >
            <option value="exact">Whole value</option>
            <option value="contains">Part of the value</option>
          </select>
        </label>
        <button type="submit" ref={submitRef} disabled={busy || (match === 'contains' && find === '')}>
          {busy && outcome?.kind !== 'preview' ? 'Counting…' : 'Replace all…'}
        </button>
      </form>
      {outcome?.kind === 'preview' ? (
        outcome.cells === 0 ? (
          <p role="status">No order has that value; nothing would change.</p>
        ) : (
          <div className="replace-confirm">
            <p role="status">
              {plural(outcome.cells, 'cell')} in {plural(outcome.orders, 'order')} will change.
            </p>
            <button type="button" ref={confirmRef} onClick={() => void apply(outcome.search)} disabled={busy}>
              {busy ? 'Replacing…' : `Replace ${plural(outcome.cells, 'cell')}`}
            </button>
            <button type="button" className="secondary" onClick={() => setOutcome(undefined)} disabled={busy}>
              Cancel
            </button>
          </div>
        )
      ) : outcome?.kind === 'done' ? (
        <p role="status">
          Changed {plural(outcome.cells, 'cell')} in {plural(outcome.orders, 'order')}; each order was checked again.
          Undo takes it all back.
        </p>
      ) : outcome ? (
        <ErrorMessage error={outcome.error} />
      ) : null}
    </section>
  );
}
