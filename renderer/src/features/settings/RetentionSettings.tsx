import { useCallback, useId, useRef, useState, type FormEvent } from 'react';
import { ContractError } from '../../../../shared/errors.js';
import type { RetentionState, StagedDays } from '../../../../shared/retention-contract.js';
import { useApi } from '../../api/api-context.js';
import { useLoad } from '../../api/use-load.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { useFocusWhenLost } from '../focus/focus-return.js';
import { formatDateTime } from '../format/format-date.js';
import { plural } from '../format/format-time.js';
import { ConfirmDialog } from '../preview/ConfirmDialog.js';
import { pageAsksFirst, readRetentionForm, toRetentionForm, type RetentionForm } from './retention-form.js';

const keptFor = (days: StagedDays) => (days === null ? 'for ever' : `for ${plural(days, 'day')}`);

/**
 * How long the app keeps the copies of imported file lines and HL7 messages once an order is finished (issue #16):
 * what stays for ever and what goes said plainly, a number of days or for ever, and a question before a shorter
 * time is saved (the copies it drops cannot be brought back): in the page, or, in the desktop app
 * (`nativeConfirm`), only in its native dialog, which says what it drops; a no there comes back as the core's
 * refusal, shown below the form.
 */
export function RetentionSettings({ nativeConfirm }: { nativeConfirm: boolean }) {
  const api = useApi();
  const load = useCallback(() => api.call('retention.get', {}), [api]);
  const loaded = useLoad(load);
  return (
    <section aria-labelledby="retention-heading" className="panel">
      <h3 id="retention-heading">Imported file copies</h3>
      <p>
        Orders, the exact request sent for each, their statuses and history, and the Log are kept for ever. The copies
        of the imported file lines and HL7 messages, and each order's staged body, problems and where its values came
        from, are dropped once the order is finished (dispatched, processed, cancelled, rejected or withdrawn) and the
        time below has passed since it was accepted. The order still names its file and line, but its source text is no
        longer shown. Anything an open order or a batch waiting in the Preview needs is never dropped.
      </p>
      {loaded.value ? (
        <RetentionEditor key={loaded.value.updatedAt} state={loaded.value} nativeConfirm={nativeConfirm} />
      ) : loaded.error ? (
        <ErrorMessage error={loaded.error} />
      ) : (
        <p className="hint">Loading…</p>
      )}
    </section>
  );
}

function RetentionEditor({ state: initial, nativeConfirm }: { state: RetentionState; nativeConfirm: boolean }) {
  const api = useApi();
  const id = useId();
  const [state, setState] = useState(initial);
  const [form, setForm] = useState<RetentionForm>(() => toRetentionForm(initial.stagedDays));
  const [error, setError] = useState<string>();
  const [failure, setFailure] = useState<unknown>();
  const [asking, setAsking] = useState<StagedDays | undefined>();
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState<string>();
  const daysId = `${id}-days`;
  // The question's dialog closes with its buttons gone and Save disabled while saving: the keyboard comes back to Save.
  const saveRef = useRef<HTMLButtonElement>(null);
  useFocusWhenLost(asking !== undefined || busy, () => saveRef.current);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSaved(undefined);
    setFailure(undefined);
    const read = readRetentionForm(form);
    if (!read.ok) {
      setError(read.error);
      return;
    }
    setError(undefined);
    if (read.stagedDays === state.stagedDays) {
      setSaved(`Imported file copies are already kept ${keptFor(read.stagedDays)}.`);
      return;
    }
    if (pageAsksFirst(state.stagedDays, read.stagedDays, nativeConfirm)) setAsking(read.stagedDays);
    else void save(read.stagedDays);
  }

  async function save(stagedDays: StagedDays) {
    setBusy(true);
    try {
      const next = await api.call('retention.set', { stagedDays });
      setState(next);
      setForm(toRetentionForm(next.stagedDays));
      setSaved(`Saved: imported file copies are kept ${keptFor(next.stagedDays)}.`);
    } catch (thrown) {
      // The core checks the days with the same rule: its words go beside the field, anything else below.
      const issue = thrown instanceof ContractError ? thrown.issues?.find((i) => i.path === 'stagedDays') : undefined;
      if (issue) setError(issue.message);
      else setFailure(thrown);
    } finally {
      setBusy(false);
      setAsking(undefined);
    }
  }

  return (
    <>
      <form onSubmit={submit} aria-labelledby={`${id}-legend`} noValidate>
        <fieldset className="choice">
          <legend id={`${id}-legend`}>Keep imported file copies</legend>
          <label className="choice-option">
            <input
              type="radio"
              name={`${id}-mode`}
              checked={form.mode === 'days'}
              onChange={() => setForm((f) => ({ ...f, mode: 'days' }))}
            />{' '}
            For a number of days
          </label>
          <label className="choice-option">
            <input
              type="radio"
              name={`${id}-mode`}
              checked={form.mode === 'forever'}
              onChange={() => setForm((f) => ({ ...f, mode: 'forever' }))}
            />{' '}
            For ever
          </label>
        </fieldset>
        {form.mode === 'days' ? (
          <div className="field retention-days">
            <label htmlFor={daysId}>Days after an order is accepted, once it is finished</label>
            <input
              id={daysId}
              inputMode="numeric"
              maxLength={6}
              value={form.days}
              aria-invalid={error ? true : undefined}
              aria-describedby={`${daysId}-hint${error ? ` ${daysId}-error` : ''}`}
              onChange={(e) => setForm((f) => ({ ...f, days: e.target.value }))}
            />
            <span id={`${daysId}-hint`} className="hint">
              1 to 36,500 days; 90 unless changed.
            </span>
            {error ? (
              <span id={`${daysId}-error`} className="field-error">
                ! {error}
              </span>
            ) : null}
          </div>
        ) : null}
        <div className="button-row">
          <button type="submit" ref={saveRef} disabled={busy}>
            Save
          </button>
        </div>
      </form>
      <p role="status" className="hint">
        {saved ?? ''}
      </p>
      {failure ? <ErrorMessage error={failure} /> : null}
      <RetentionRunReport state={state} />
      {asking !== undefined && asking !== null ? (
        <ConfirmDialog
          title={`Keep imported file copies for ${plural(asking, 'day')} only?`}
          confirmLabel={`Keep them ${plural(asking, 'day')}`}
          cancelLabel="Cancel"
          busy={busy}
          onConfirm={() => void save(asking)}
          onCancel={() => setAsking(undefined)}
        >
          <p>
            Within a few minutes, the copies of every finished order accepted more than {plural(asking, 'day')} ago are
            dropped: their file lines or HL7 messages, staged bodies, problems and provenance. They cannot be brought
            back, and those orders&apos; source text is no longer shown. The orders, their statuses and the Log stay.
          </p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}

/** What the background run last did (since Rx Batch started) and when it runs next, and where freed space goes. */
function RetentionRunReport({ state }: { state: RetentionState }) {
  const last = state.lastRun;
  const freeMb = (state.freePages * state.pageSize) / 1_048_576;
  return (
    <dl className="report">
      <dt>Last applied</dt>
      <dd>
        {last ? (
          <>
            <time dateTime={last.at}>{formatDateTime(last.at)}</time>:{' '}
            {plural(last.compacted, "order's copies", "orders' copies")} dropped,{' '}
            {plural(last.deleted, 'discarded staged order')} deleted
            {last.pagesReturned > 0 ? `, ${plural(last.pagesReturned, 'page')} given back to the disk` : ''}
            {last.aborted ? ' (stopped early; the next run carries on)' : ''}
          </>
        ) : (
          'Not yet since Rx Batch started'
        )}
      </dd>
      <dt>Next run</dt>
      <dd>
        {state.nextRunAt ? (
          <time dateTime={state.nextRunAt}>{formatDateTime(state.nextRunAt)}</time>
        ) : (
          'In the background while Rx Batch is open'
        )}
      </dd>
      <dt>Freed space</dt>
      <dd>
        {state.autoVacuum === 'incremental'
          ? 'Given back to the disk after each run.'
          : 'Reused by the store, but the file does not shrink. To give it back, close Rx Batch and run ' +
            '"rx-batch retention --vacuum" once (it rewrites the whole file).'}
        {freeMb >= 0.1 ? ` ${freeMb.toFixed(1)} MB free inside the file now.` : ''}
      </dd>
    </dl>
  );
}
