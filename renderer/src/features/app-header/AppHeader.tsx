import { useId } from 'react';
import type { AppInfo } from '../../../../shared/contract.js';
import type { EnvironmentView } from '../../../../shared/environment.js';
import { useLive } from '../live/live-context.js';
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

/** Always on screen: which environment the workspace acts on, and who is signed in to it. */
export function AppHeader({ info, environment, onSelectEnvironment }: Props) {
  const { environments } = useLive();
  const selectId = useId();
  return (
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
        <span aria-hidden="true"> · </span>
        <span>{TRANSPORT_LABELS[info.transport]}</span>
      </p>
    </header>
  );
}
