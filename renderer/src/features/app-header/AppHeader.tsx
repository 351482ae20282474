import { useId } from 'react';
import type { AppInfo } from '../../../../shared/contract.js';
import type { EnvironmentView } from '../../../../shared/environment.js';
import { useConnection } from '../../api/connection-state.js';
import { useLive } from '../live/live-context.js';
import { ConnectionNotice } from './ConnectionNotice.js';
import { coreNotice } from './core-notice.js';
import { IdentityBadge } from './IdentityBadge.js';

const TRANSPORT_LABELS: Record<AppInfo['transport'], string> = {
  electron: 'Desktop app',
  browser: 'Browser mode',
  direct: 'Direct',
};

interface Props {
  info: AppInfo;
  environment: EnvironmentView | undefined;
  onSelectEnvironment: (id: string) => void;
}

/**
 * Always on screen: which environment the workspace acts on, who is signed in to it, and, at once, when the app's
 * core has stopped (it is restarted; the banner stays until it runs again).
 */
export function AppHeader({ info, environment, onSelectEnvironment }: Props) {
  const { environments, core } = useLive();
  const selectId = useId();
  const notice = coreNotice(core);
  const connection = useConnection();
  return (
    <>
      <header className="app-header">
        <h1>{info.name}</h1>
        <div className="header-environment">
          <label htmlFor={selectId}>Environment</label>
          <select
            id={selectId}
            value={environment?.id ?? ''}
            onChange={(event) => onSelectEnvironment(event.target.value)}
          >
            {environments.map((candidate) => (
              <option key={candidate.id} value={candidate.id}>
                {candidate.name}
              </option>
            ))}
          </select>
        </div>
        {environment ? <IdentityBadge environment={environment} /> : null}
        <p className="app-meta">
          <span>Version {info.version}</span>
          <span aria-hidden="true" className="app-meta-separator">
            {' · '}
          </span>
          <span>{TRANSPORT_LABELS[info.transport]}</span>
        </p>
      </header>
      {/* A live region that is always there (so the change is announced), taking no room until it has something. */}
      <div role="status" aria-label="Rx Batch’s core">
        {connection.state === 'lost' ? <ConnectionNotice connection={connection} /> : null}
        {notice && connection.state !== 'lost' ? (
          <div
            role={notice.role === 'alert' ? 'alert' : undefined}
            className={`banner banner-${notice.tone}`}
            style={{ margin: '0.75rem 1.5rem 0' }}
          >
            <p className="banner-title">{notice.title}</p>
            <p>{notice.text}</p>
          </div>
        ) : null}
      </div>
    </>
  );
}
