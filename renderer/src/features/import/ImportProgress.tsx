import type { EventPayload } from '../../../../shared/contract.js';

export type Progress = EventPayload<'import.progress'>;

/** A running import: how much of the file is read, rows so far, and cancel. */
export function ImportProgress({
  name,
  progress,
  cancelling,
  onCancel,
}: {
  name: string;
  progress: Progress | undefined;
  cancelling: boolean;
  onCancel: () => void;
}) {
  const fraction = progress && progress.totalBytes > 0 ? progress.bytes / progress.totalBytes : undefined;
  return (
    <div className="import-progress">
      <label htmlFor="import-progress-bar">Importing {name}</label>
      <progress
        id="import-progress-bar"
        max={1}
        {...(fraction !== undefined ? { value: fraction } : {})}
        aria-valuetext={fraction !== undefined ? `${Math.round(fraction * 100)}%` : 'starting'}
      />
      <span role="status">
        {progress
          ? `${Math.round((fraction ?? 0) * 100)}% · ${progress.rows.toLocaleString('en-GB')} rows read`
          : 'Starting…'}
      </span>
      <button type="button" className="secondary" onClick={onCancel} disabled={cancelling}>
        {cancelling ? 'Cancelling…' : 'Cancel import'}
      </button>
    </div>
  );
}
