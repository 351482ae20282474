import type { AppInfo } from '../../../../shared/contract.js';
import type { EnvironmentView } from '../../../../shared/environment.js';
import { ThemeSettings } from '../theme/ThemeSettings.js';
import { EnvironmentSettings } from './EnvironmentSettings.js';
import { OpenDataFolderButton } from './OpenDataFolderButton.js';
import { RetentionSettings } from './RetentionSettings.js';

/** Environments and their API profiles, where the data lives, how long imported file copies are kept, the theme. */
export function SettingsScreen({ info, environment }: { info: AppInfo; environment: EnvironmentView }) {
  return (
    <section aria-labelledby="screen-heading" className="screen">
      <h2 id="screen-heading" tabIndex={-1}>
        Settings
      </h2>
      <EnvironmentSettings selectedId={environment.id} />
      <section aria-labelledby="data-heading" className="panel">
        <h3 id="data-heading">Data</h3>
        <dl className="report">
          <dt>Data directory</dt>
          <dd>
            <code className="url">{info.dataDir}</code>
          </dd>
        </dl>
        {info.desktop?.openDataFolder ? <OpenDataFolderButton /> : null}
        <p className="hint">
          The outbox, the log and saved sign-ins live here. Back it up with Rx Batch closed; only one Rx Batch (app or
          command line) can use it at a time.
          {info.desktop?.openDataFolder
            ? null
            : ' The desktop app can open it in the file manager; here, open it yourself.'}
        </p>
      </section>
      <RetentionSettings nativeConfirm={info.desktop?.confirmRetention ?? false} />
      <ThemeSettings />
    </section>
  );
}
