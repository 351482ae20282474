import { createContext, use, useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import type { SkippedFile } from '../../../../shared/desktop-contract.js';
import { useApi } from '../../api/api-context.js';
import { connectionStatus } from '../../api/connection-state.js';
import { useEvent } from '../../api/use-event.js';
import { isDisconnected } from './disconnected.js';
import { routeHref } from '../workspace/route.js';

/**
 * Files the desktop app was asked to import from outside the page (a double click on a batch, "Open with", a
 * second launch, the File menu, macOS open-file). The workspace holds this provider whatever screen is open: it
 * takes the files when `import.requested` says some are waiting (and once at start-up, for the files the app was
 * launched with), opens the Import screen, and that screen imports them in turn.
 */

export interface RequestedFiles {
  id: number;
  paths: string[];
  skipped: SkippedFile[];
}

interface ImportRequests {
  /** Hand-overs not yet started, oldest first. */
  waiting: RequestedFiles[];
  /** Why the waiting files could not be fetched, if they could not. */
  failure: unknown;
  /** The Import screen started this hand-over: it leaves the queue. */
  start(id: number): void;
}

const ImportRequestsContext = createContext<ImportRequests>({ waiting: [], failure: undefined, start: () => {} });

export function useImportRequests(): ImportRequests {
  return use(ImportRequestsContext);
}

export function ImportRequestsProvider({ children }: { children: ReactNode }) {
  const api = useApi();
  const [waiting, setWaiting] = useState<RequestedFiles[]>([]);
  const [failure, setFailure] = useState<unknown>();
  const nextId = useRef(1);

  const received = useCallback((files: Omit<RequestedFiles, 'id'>) => {
    setFailure(undefined);
    if (files.paths.length + files.skipped.length === 0) return;
    const id = nextId.current++;
    setWaiting((current) => [...current, { id, ...files }]);
    window.location.hash = routeHref({ section: 'import' });
  }, []);
  // Asked again once the link is back: the question was lost with it, not answered.
  const askAgain = useRef(false);
  const failed = useCallback((error: unknown) => {
    // A link that dropped before the answer (browser mode's page cut off, the core restarting) says nothing about
    // any files: the header says the link is lost, and the Import screen is opened only for a real answer. It
    // moved the admin off the screen they were on whenever the link dropped during the first question.
    if (isDisconnected(error)) {
      askAgain.current = true;
      return;
    }
    setFailure(error);
    window.location.hash = routeHref({ section: 'import' });
  }, []);
  const take = useCallback(() => api.call('import.takeRequested', {}).then(received, failed), [api, received, failed]);

  useEffect(() => {
    void take();
  }, [take]);
  useEvent('import.requested', () => void take());
  useEffect(() => {
    const again = () => {
      if (!askAgain.current) return;
      askAgain.current = false;
      void take();
    };
    const offConnection = connectionStatus.subscribe((connection) => {
      if (connection.state === 'connected') again();
    });
    const offCore = api.on('app.core', (core) => {
      if (core.state === 'running') again();
    });
    return () => {
      offConnection();
      offCore();
    };
  }, [api, take]);

  const start = useCallback((id: number) => setWaiting((current) => current.filter((files) => files.id !== id)), []);
  return <ImportRequestsContext value={{ waiting, failure, start }}>{children}</ImportRequestsContext>;
}
