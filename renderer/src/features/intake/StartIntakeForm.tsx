import { useId, useRef, useState, type FormEvent } from 'react';
import type { EnvironmentView } from '../../../../shared/environment.js';
import type { IntakeStatus } from '../../../../shared/intake-contract.js';
import { useApi } from '../../api/api-context.js';
import { describeActionFailure, describeFailure } from '../errors/describe-failure.js';
import { FailureMessage } from '../errors/ErrorMessage.js';
import { useFocusWhenLost } from '../focus/focus-return.js';

/**
 * Starts the app's intake for the selected environment: an MLLP listener on this computer (127.0.0.1) and folders
 * the app may import from. What happens to the orders is the environment's saved rules (IntakeRulesForm), which
 * `rx-batch serve` uses too.
 */
export function StartIntakeForm({
  environment,
  allowedFolders,
  desktop,
  port,
  onPort,
  onStarted,
}: {
  environment: EnvironmentView;
  /** null: any folder (direct calls); empty: none from the app. */
  allowedFolders: readonly string[] | null;
  /** The desktop app: a folder is chosen in its native dialog (the only way it may be watched there). */
  desktop: boolean;
  port: string;
  onPort: (port: string) => void;
  onStarted: (status: IntakeStatus) => void;
}) {
  const api = useApi();
  const id = useId();
  const [listen, setListen] = useState(true);
  const [folder, setFolder] = useState('');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<{ error: unknown; starting: boolean }>();
  const portRef = useRef<HTMLInputElement>(null);
  const folderRef = useRef<HTMLInputElement>(null);
  const submitRef = useRef<HTMLButtonElement>(null);
  // The button is disabled while intake starts: when it did not, the keyboard goes to what to change, the folder
  // refused or else the port to choose another.
  useFocusWhenLost(failure, () =>
    isFolderRefusal(failure?.error) ? folderRef.current : listen ? portRef.current : submitRef.current,
  );
  const canType = allowedFolders === null || allowedFolders.length > 0;
  const canWatch = canType || desktop;

  async function chooseFolder() {
    setFailure(undefined);
    try {
      const chosen = await api.call('files.choose', { purpose: 'intake-folder' });
      if (chosen.ok && chosen.paths[0]) setFolder(chosen.paths[0]);
    } catch (error) {
      setFailure({ error, starting: false });
    }
  }
  const portNumber = Number(port);
  const portValid = port !== '' && Number.isInteger(portNumber) && portNumber >= 1 && portNumber <= 65535;

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setFailure(undefined);
    try {
      onStarted(
        await api.call('intake.start', {
          environmentId: environment.id,
          ...(listen ? { port: portNumber } : {}),
          ...(folder.trim() ? { folders: [folder.trim()] } : {}),
        }),
      );
    } catch (error) {
      setFailure({ error, starting: true });
    }
    setBusy(false);
  }

  const nothing = !listen && !folder.trim();
  return (
    <form onSubmit={(event) => void submit(event)} aria-label="Start intake" className="stack">
      <div className="field-row">
        <label className="choice-option">
          <input type="checkbox" checked={listen} onChange={(event) => setListen(event.target.checked)} /> Listen for
          MLLP on this computer (127.0.0.1)
        </label>
        <div className="field">
          <label htmlFor={`${id}-port`}>Port</label>
          <input
            id={`${id}-port`}
            ref={portRef}
            inputMode="numeric"
            value={port}
            onChange={(event) => onPort(event.target.value.replace(/\D/g, '').slice(0, 5))}
            disabled={!listen}
            size={6}
            aria-invalid={listen && !portValid}
          />
        </div>
      </div>
      <div className="field">
        <label htmlFor={`${id}-folder`}>Folder to watch (optional)</label>
        <input
          id={`${id}-folder`}
          ref={folderRef}
          value={folder}
          aria-invalid={isFolderRefusal(failure?.error)}
          onChange={(event) => setFolder(event.target.value)}
          disabled={!canWatch}
          readOnly={!canType}
          size={48}
          spellCheck={false}
          list={allowedFolders && allowedFolders.length > 0 ? `${id}-folders` : undefined}
          aria-describedby={`${id}-folder-hint`}
        />
        {allowedFolders && allowedFolders.length > 0 ? (
          <datalist id={`${id}-folders`}>
            {allowedFolders.map((allowed) => (
              <option key={allowed} value={allowed} />
            ))}
          </datalist>
        ) : null}
        <p id={`${id}-folder-hint`} className="hint">
          {allowedFolders === null
            ? 'Any folder on this computer.'
            : allowedFolders.length > 0
              ? `A folder Rx Batch may import from: ${allowedFolders.join(', ')} (or one inside it).`
              : desktop
                ? 'Choose the folder the clinic system writes into.'
                : 'The app watches only folders it may import from, and this one has none: use rx-batch serve --watch FOLDER.'}
        </p>
        {desktop && !canType ? (
          <div className="button-row">
            <button type="button" className="secondary" onClick={() => void chooseFolder()}>
              Choose folder…
            </button>
            {folder ? (
              <button type="button" className="secondary" onClick={() => setFolder('')}>
                No folder
              </button>
            ) : null}
          </div>
        ) : null}
      </div>
      <p className="hint">Orders follow the saved rules under “When orders arrive”.</p>
      {failure ? (
        <FailureMessage
          text={
            failure.starting
              ? describeActionFailure('Intake did not start.', failure.error)
              : describeFailure(failure.error)
          }
        />
      ) : null}
      <button type="submit" ref={submitRef} disabled={busy || nothing || (listen && !portValid)}>
        {busy ? 'Starting…' : 'Start intake'}
      </button>
    </form>
  );
}

/** The core refused the folder given (its issue names the field), not the start as a whole. */
function isFolderRefusal(error: unknown): boolean {
  const issues = (error as { issues?: unknown } | undefined)?.issues;
  return Array.isArray(issues) && issues.some((issue) => (issue as { path?: unknown }).path === 'folders');
}
