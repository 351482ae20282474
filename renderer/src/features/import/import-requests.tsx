import { createContext, use, useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import type { SkippedFile } from '../../../../shared/desktop-contract.js';
import { useApi } from '../../api/api-context.js';
import { useEvent } from '../../api/use-event.js';
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
  const failed = useCallback((error: unknown) => {
    setFailure(error);
    window.location.hash = routeHref({ section: 'import' });
  }, []);
  const take = useCallback(() => api.call('import.takeRequested', {}).then(received, failed), [api, received, failed]);

  useEffect(() => {
    void take();
  }, [take]);
  useEvent('import.requested', () => void take());

  const start = useCallback((id: number) => setWaiting((current) => current.filter((files) => files.id !== id)), []);
  return <ImportRequestsContext value={{ waiting, failure, start }}>{children}</ImportRequestsContext>;
}
