import type { AppInfo } from '../../../../shared/contract.js';

const TRANSPORT_LABELS: Record<AppInfo['transport'], string> = {
  electron: 'Desktop app',
  browser: 'Browser mode',
  direct: 'Direct',
};

export function AppHeader({ info }: { info: AppInfo }) {
  return (
    <header className="app-header">
      <h1>{info.name}</h1>
      <p className="app-meta">
        <span>Version {info.version}</span>
        <span aria-hidden="true"> · </span>
        <span>{TRANSPORT_LABELS[info.transport]}</span>
      </p>
    </header>
  );
}
