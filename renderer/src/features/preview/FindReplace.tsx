import { useState } from 'react';
import type { BatchView } from '../../../../shared/staging-views.js';
import { useApi } from '../../api/api-context.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { ORDER_FIELDS } from './order-fields.js';

/** Find and replace on one column across the whole batch (the core re-validates every order it changes). */
export function FindReplace({ batch, onReplaced }: { batch: BatchView; onReplaced: () => void }) {
  const api = useApi();
  const [column, setColumn] = useState('courierCode');
  const [find, setFind] = useState('');
  const [replace, setReplace] = useState('');
  const [match, setMatch] = useState<'exact' | 'contains'>('exact');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ changed: number } | { error: unknown }>();

  async function run() {
    setBusy(true);
    try {
      const result = await api.call('batches.replace', { batchId: batch.id, field: column, find, replace, match });
      setOutcome({ changed: result.changed });
      onReplaced();
    } catch (error) {
      setOutcome({ error });
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
          void run();
        }}
      >
        <label>
          Column{' '}
          <select value={column} onChange={(event) => setColumn(event.target.value)}>
            {ORDER_FIELDS.map((field) => (
              <option key={field.column} value={field.column}>
                {field.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Find <input value={find} onChange={(event) => setFind(event.target.value)} />
        </label>
        <label>
          Replace with <input value={replace} onChange={(event) => setReplace(event.target.value)} />
        </label>
        <label>
          Match{' '}
          <select value={match} onChange={(event) => setMatch(event.target.value as 'exact' | 'contains')}>
            <option value="exact">Whole value</option>
            <option value="contains">Part of the value</option>
          </select>
        </label>
        <button type="submit" disabled={busy || (match === 'contains' && find === '')}>
          {busy ? 'Replacing…' : 'Replace all'}
        </button>
      </form>
      {outcome && 'changed' in outcome ? (
        <p role="status">
          {outcome.changed === 0
            ? 'No order had that value.'
            : `Changed ${outcome.changed} ${outcome.changed === 1 ? 'order' : 'orders'}; each was checked again.`}
        </p>
      ) : outcome ? (
        <ErrorMessage error={outcome.error} />
      ) : null}
    </section>
  );
}
