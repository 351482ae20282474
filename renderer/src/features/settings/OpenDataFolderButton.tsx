import { useState } from 'react';
import { useApi } from '../../api/api-context.js';
import { ErrorMessage } from '../errors/ErrorMessage.js';

/** Desktop app only: opens the data directory in the system's file manager, and says so when that fails. */
export function OpenDataFolderButton() {
  const api = useApi();
  const [problem, setProblem] = useState<unknown>();
  const [message, setMessage] = useState<string>();

  async function open() {
    setProblem(undefined);
    setMessage(undefined);
    try {
      const result = await api.call('app.openDataFolder', {});
      if (!result.ok) setMessage(result.message);
    } catch (error) {
      setProblem(error);
    }
  }

  return (
    <>
      <button type="button" className="secondary" onClick={() => void open()}>
        Open in file manager
      </button>
      {message ? (
        <p role="alert" className="message message-error">
          {message}
        </p>
      ) : null}
      {problem ? <ErrorMessage error={problem} /> : null}
    </>
  );
}
