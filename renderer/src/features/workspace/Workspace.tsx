import { useEffect, useRef, useState } from 'react';
import type { AppInfo } from '../../../../shared/contract.js';
import type { EnvironmentView } from '../../../../shared/environment.js';
import { useApi } from '../../api/api-context.js';
import { AppHeader } from '../app-header/AppHeader.js';
import { ImportRequestsProvider } from '../import/import-requests.js';
import { LiveProvider } from '../live/LiveProvider.js';
import { useLive } from '../live/live-context.js';
import { Screen } from './Screen.js';
import { SectionNav } from './SectionNav.js';
import { resolveEnvironment, takeLegacyChoice } from './selected-environment.js';
import { replaceRoute, useHashRoute } from './use-hash-route.js';

interface Props {
  info: AppInfo;
  initialEnvironments: EnvironmentView[];
  /** The environment chosen last time (the core remembers it), if it still exists. */
  chosenId: string | undefined;
}

export function Workspace({ info, initialEnvironments, chosenId }: Props) {
  return (
    <LiveProvider initialEnvironments={initialEnvironments}>
      {/* Files the OS hands to the desktop app open the Import screen, whatever screen is showing. */}
      <ImportRequestsProvider>
        <WorkspaceLayout info={info} initialChosenId={chosenId} />
      </ImportRequestsProvider>
    </LiveProvider>
  );
}

/** Header (environment and identity), the sections, and the open screen. */
function WorkspaceLayout({ info, initialChosenId }: { info: AppInfo; initialChosenId: string | undefined }) {
  const api = useApi();
  const { environments } = useLive();
  const route = useHashRoute();
  // An upgrade from a version that kept the choice in the page: the core takes it over.
  const [legacy] = useState(() => (initialChosenId === undefined ? takeLegacyChoice() : undefined));
  const [chosenId, setChosenId] = useState(initialChosenId ?? legacy);
  useEffect(() => {
    if (legacy !== undefined) api.call('environments.choose', { environmentId: legacy }).catch(() => undefined);
  }, [api, legacy]);
  const environment = resolveEnvironment(environments, chosenId);
  const mainRef = useRef<HTMLElement>(null);
  const firstRender = useRef(true);

  // After a section change, focus moves to the new screen's heading so keyboard and screen reader users land there.
  useEffect(() => {
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    mainRef.current?.querySelector<HTMLElement>('#screen-heading')?.focus();
  }, [route.section]);

  function select(id: string) {
    // A batch belongs to its environment: the address stops naming it, so the other environment's screen opens clean.
    if (route.batch && id !== environment?.id) {
      const { batch: _left, ...rest } = route;
      replaceRoute(rest);
    }
    setChosenId(id);
    // Remembered by the core for the next start; if that fails, the choice still holds for this session.
    api.call('environments.choose', { environmentId: id }).catch(() => undefined);
  }

  return (
    <>
      {/* Focus moves by script: the fragment holds the route, so following "#main" would change screens. */}
      <a
        className="skip-link"
        href="#main"
        onClick={(event) => {
          event.preventDefault();
          mainRef.current?.focus();
        }}
      >
        Skip to the screen
      </a>
      <AppHeader info={info} environment={environment} onSelectEnvironment={select} />
      <div className="layout">
        <SectionNav current={route.section} environment={environment} />
        <main id="main" className="workspace" ref={mainRef} tabIndex={-1}>
          {environment ? (
            <Screen route={route} info={info} environment={environment} />
          ) : (
            <p>No environment is configured.</p>
          )}
        </main>
      </div>
    </>
  );
}
