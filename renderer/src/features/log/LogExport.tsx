import { useId, useRef, useState } from 'react';
import type { LogFilter } from '../../../../shared/log-contract.js';
import { useApi } from '../../api/api-context.js';
import { startExportDownload } from '../../download-export.js';
import { useEvent } from '../../api/use-event.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { useFocusWhenLost } from '../focus/focus-return.js';
import { exportSentence } from './export-words.js';

/**
 * Exports the entries the screen's filters select (or the whole log when none is set) as CSV or JSON Lines; clinic
 * order ids are masked unless the admin asks otherwise. The core streams it to a file: in the desktop app where the
 * admin chooses, in a browser as a download.
 */
export function LogExport({ filter, described }: { filter: LogFilter | undefined; described: string }) {
  const api = useApi();
  const id = useId();
  const [format, setFormat] = useState<'csv' | 'jsonl'>('csv');
  const [unmask, setUnmask] = useState(false);
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState<{ done: number; total: number | null }>();
  /** The last export's sentence, and the filters it was for. */
  const [last, setLast] = useState<{ text: string; filterKey: string }>();
  const [failure, setFailure] = useState<unknown>();
  const exportRef = useRef<HTMLButtonElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  // "Export log" is disabled while it runs: the keyboard goes to "Cancel export", then back.
  useFocusWhenLost(busy, () => (busy ? cancelRef.current : exportRef.current));

  // What the last export wrote was for the filters then: once they change, it would read as this selection's.
  const filterKey = JSON.stringify(filter ?? null);
  const done = last?.filterKey === filterKey ? last.text : undefined;
  const setDone = (text: string | undefined) => setLast(text === undefined ? undefined : { text, filterKey });

  useEvent('log.progress', (event) => {
    if (event.operation === 'export') setProgress(event.finished ? undefined : event);
  });

  async function exportLog() {
    setBusy(true);
    setFailure(undefined);
    setDone(undefined);
    try {
      const result = await api.call('log.export', { format, unmask, ...(filter ? { filter } : {}) });
      if (result.outcome === 'download') startExportDownload(result);
      setDone(exportSentence(result));
    } catch (error) {
      setFailure(error);
    }
    setProgress(undefined);
    setBusy(false);
  }

  function cancel() {
    api.call('log.cancel', { operation: 'export' }).catch((error: unknown) => setFailure(error));
  }

  const progressText = progress
    ? `Exporting… ${progress.done.toLocaleString()}${progress.total !== null ? ` of ${progress.total.toLocaleString()}` : ''} entries`
    : 'Exporting…';

  return (
    <section aria-labelledby="export-heading" className="panel">
      <h3 id="export-heading">Export</h3>
      <p>{described}</p>
      <div className="field-row">
        <fieldset className="choice">
          <legend>Format</legend>
          <label className="choice-option">
            <input type="radio" name={`${id}-format`} checked={format === 'csv'} onChange={() => setFormat('csv')} />{' '}
            CSV
          </label>
          <label className="choice-option">
            <input
              type="radio"
              name={`${id}-format`}
              checked={format === 'jsonl'}
              onChange={() => setFormat('jsonl')}
            />{' '}
            JSON Lines
          </label>
        </fieldset>
        <label className="choice-option">
          <input type="checkbox" checked={unmask} onChange={(event) => setUnmask(event.target.checked)} /> Show clinic
          order ids in full
        </label>
      </div>
      <p className="hint">
        Masked by default: clinic order ids show only their last three characters. The export itself is logged.
      </p>
      <div className="button-row">
        <button type="button" ref={exportRef} onClick={() => void exportLog()} disabled={busy}>
          {busy ? 'Exporting…' : 'Export log'}
        </button>
        {busy ? (
          <button type="button" className="secondary" ref={cancelRef} onClick={cancel}>
            Cancel export
          </button>
        ) : null}
      </div>
      {busy && progress?.total ? (
        <progress max={progress.total} value={progress.done} aria-label="Export progress" />
      ) : null}
      <p role="status" className="hint">
        {busy ? progressText : (done ?? '')}
      </p>
      {failure ? <ErrorMessage error={failure} /> : null}
    </section>
  );
}
