import { useRef, useState, type DragEvent } from 'react';

/**
 * Drop a file or choose one; or, for a file too large to upload through the page, give its path on this
 * computer (the app runs here, so it can read the file itself).
 */
export function FileChooser({
  disabled,
  onFile,
  onPath,
  pathOpen,
}: {
  disabled: boolean;
  onFile: (file: File) => void;
  onPath: (path: string) => void;
  pathOpen: boolean;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const [path, setPath] = useState('');

  function drop(event: DragEvent<HTMLDivElement>) {
    event.preventDefault();
    setOver(false);
    const file = event.dataTransfer.files[0];
    if (file && !disabled) onFile(file);
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
        <p>Drop a CSV or HL7 file here, or</p>
        <button type="button" onClick={() => input.current?.click()} disabled={disabled}>
          Choose a file…
        </button>
        <input
          ref={input}
          type="file"
          className="visually-hidden"
          aria-label="Batch file (CSV or HL7)"
          accept=".csv,.txt,.hl7,.tsv,.json,text/csv,text/plain"
          tabIndex={-1}
          onChange={(event) => {
            const file = event.target.files?.[0];
            event.target.value = '';
            if (file) onFile(file);
          }}
        />
      </div>
      <details className="path-import" open={pathOpen || undefined}>
        <summary>Import a file by its path on this computer</summary>
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
      </details>
    </div>
  );
}
