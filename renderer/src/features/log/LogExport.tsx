import { useId, useState } from 'react';
import { useApi } from '../../api/api-context.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';
import { plural } from '../format/format-time.js';
import { downloadText } from '../../download-text.js';
import { exportFileName } from './download.js';

/** Exports the whole log as CSV or JSON Lines; clinic order ids are masked unless the admin asks otherwise. */
export function LogExport() {
  const api = useApi();
  const id = useId();
  const [format, setFormat] = useState<'csv' | 'jsonl'>('csv');
  const [unmask, setUnmask] = useState(false);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string>();
  const [failure, setFailure] = useState<unknown>();

  async function exportLog() {
    setBusy(true);
    setFailure(undefined);
    setDone(undefined);
    try {
      const result = await api.call('log.export', { format, unmask });
      const fileName = exportFileName(result.format);
      downloadText(fileName, result.text, result.format === 'csv' ? 'text/csv;charset=utf-8' : 'application/x-ndjson');
      setDone(
        `Exported ${plural(result.count, 'entry', 'entries')} to ${fileName}, clinic order ids ${result.masked ? 'masked' : 'in full'}.`,
      );
    } catch (error) {
      setFailure(error);
    }
    setBusy(false);
  }

  return (
    <section aria-labelledby="export-heading" className="panel">
      <h3 id="export-heading">Export</h3>
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
      <button type="button" onClick={() => void exportLog()} disabled={busy}>
        {busy ? 'Exporting…' : 'Export log'}
      </button>
      <p role="status" className="hint">
        {done ?? ''}
      </p>
      {failure ? <ErrorMessage error={failure} /> : null}
    </section>
  );
}
