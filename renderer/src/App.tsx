import { Suspense, use, useState } from 'react';
import type { AppInfo, RxBatchApi } from '../../shared/contract.js';
import type { EnvironmentView } from '../../shared/environment.js';
import { ApiContext } from './api/api-context.js';
import { settle, type Settled } from './api/settle.js';
import { ErrorMessage } from './features/errors/ErrorMessage.js';
import { Workspace } from './features/workspace/Workspace.js';

type Startup = Promise<Settled<[AppInfo, EnvironmentView[], { environmentId: string | null }]>>;

function Ready({ api, startup }: { api: RxBatchApi; startup: Startup }) {
  const outcome = use(startup);
  if (!outcome.ok) return <ErrorMessage error={outcome.error} />;
  const [info, environments, chosen] = outcome.value;
  return (
    <ApiContext value={api}>
      <Workspace info={info} initialEnvironments={environments} chosenId={chosen.environmentId ?? undefined} />
    </ApiContext>
  );
}

/** Owns the start-up request. It never suspends itself: a component that suspends on mount loses its state. */
function Started({ api }: { api: RxBatchApi }) {
  const [startup] = useState(() =>
    settle(
      Promise.all([api.call('app.info', {}), api.call('environments.list', {}), api.call('environments.chosen', {})]),
    ),
  );
  return (
    <Suspense fallback={<p role="status">Loading…</p>}>
      <Ready api={api} startup={startup} />
    </Suspense>
  );
}

function Connected({ connection }: { connection: Promise<Settled<RxBatchApi>> }) {
  const outcome = use(connection);
  if (!outcome.ok) {
    return (
      <main className="workspace">
        <h1>Rx Batch</h1>
        <ErrorMessage error={outcome.error} />
      </main>
    );
  }
  return <Started api={outcome.value} />;
}

export function App({ connection }: { connection: Promise<Settled<RxBatchApi>> }) {
  return (
    <Suspense fallback={<p role="status">Connecting to Rx Batch…</p>}>
      <Connected connection={connection} />
    </Suspense>
  );
}
