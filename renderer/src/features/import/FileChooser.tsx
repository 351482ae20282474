import { useRef, useState, type DragEvent } from 'react';
import { IMPORT_EXTENSIONS } from '../../../../shared/import-files.js';

/** What the browser's file chooser lists: the extensions the desktop dialog offers, and plain text of any name. */
const ACCEPT = [...IMPORT_EXTENSIONS.map((extension) => `.${extension}`), 'text/csv', 'text/plain'].join(',');

/**
 * Drop files or choose them. In the desktop app, "Choose files…" and "Choose a folder…" open the system's own
 * dialog and files are read from disk by path (any size). In browser mode the page reads a chosen or dropped file
 * and uploads its text; a file too large for that can be given by its path on this computer, if it is inside a
 * folder the app was started with (`--import-dir`): the page itself can never widen what the app may read.
 */
export function FileChooser({
  disabled,
  desktop,
  importFolders,
  onFiles,
  onChoose,
  onPath,
  pathOpen,
}: {
  disabled: boolean;
  /** The native dialogs are there (`app.info`'s `desktop`). */
  desktop: boolean;
  /** Browser mode: the folders files may be imported from by path (`app.info`'s `importFolders`). */
  importFolders: readonly string[];
  onFiles: (files: File[]) => void;
  onChoose: (purpose: 'import' | 'import-folder') => void;
  onPath: (path: string) => void;
  pathOpen: boolean;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const [path, setPath] = useState('');

  function drop(event: DragEvent<HTMLDivElement>) {
    event.preventDefault();
    setOver(false);
    const files = [...event.dataTransfer.files];
    if (files.length > 0 && !disabled) onFiles(files);
  }

  return (
    <div className="file-chooser">
      <div
        className={`drop-zone${over ? ' drop-over' : ''}`}
        onDragOver={(event) => {
          event.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={drop}
      >
        {desktop ? (
          <>
            <p>Drop CSV or HL7 files here, or</p>
            <button type="button" onClick={() => onChoose('import')} disabled={disabled}>
              Choose files…
            </button>
            <button type="button" className="secondary" onClick={() => onChoose('import-folder')} disabled={disabled}>
              Choose a folder…
            </button>
          </>
        ) : (
          <>
            <p>Drop a CSV or HL7 file here, or</p>
            <button type="button" onClick={() => input.current?.click()} disabled={disabled}>
              Choose a file…
            </button>
            <input
              ref={input}
              type="file"
              className="visually-hidden"
              aria-label="Batch file (CSV or HL7)"
              accept={ACCEPT}
              tabIndex={-1}
              onChange={(event) => {
                const file = event.target.files?.[0];
                event.target.value = '';
                if (file) onFiles([file]);
              }}
            />
          </>
        )}
      </div>
      {desktop ? null : (
        <details className="path-import" open={pathOpen || undefined}>
          <summary>Import a file by its path on this computer</summary>
          <p className="hint">{pathImportHint(importFolders)}</p>
          {importFolders.length === 0 ? null : (
            <form
              className="search-form"
              onSubmit={(event) => {
                event.preventDefault();
                if (path.trim()) onPath(path.trim());
              }}
            >
              <label>
                File path{' '}
                <input
                  value={path}
                  onChange={(event) => setPath(event.target.value)}
                  placeholder="/home/me/orders.csv"
                  className="path-input"
                />
              </label>
              <button type="submit" disabled={disabled || !path.trim()}>
                Import from path
              </button>
            </form>
          )}
        </details>
      )}
    </div>
  );
}

/** What the admin can import by path in a browser, and how to allow more (only from the host's command line). */
export function pathImportHint(folders: readonly string[]): string {
  return folders.length === 0
    ? 'Importing by path is off. To import files too large to upload, start Rx Batch with --import-dir FOLDER ' +
        '(npm run start:browser -- --import-dir FOLDER) and give the path of a file in that folder here.'
    : `Files in ${folders.join(', ')} (and folders inside) can be imported by their path, however large.`;
}
