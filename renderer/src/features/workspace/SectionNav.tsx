import { useEffect } from 'react';
import type { EnvironmentView } from '../../../../shared/environment.js';
import { useLive } from '../live/live-context.js';
import { routeHref, SECTIONS, type SectionId } from './route.js';

/** The sections as links (the address bar keeps the place); Submissions says when something needs attention. */
export function SectionNav({ current, environment }: { current: SectionId; environment: EnvironmentView | undefined }) {
  const { progress, refreshProgress } = useLive();
  const environmentId = environment?.id;
  const state = environmentId ? progress[environmentId]?.state : undefined;
  const blocked = state === 'sign-in-required' || state === 'service-unavailable';

  useEffect(() => {
    if (environmentId) void refreshProgress(environmentId);
  }, [environmentId, refreshProgress]);

  return (
    <nav aria-label="Workspace" className="sidebar">
      <ul>
        {SECTIONS.map((section) => (
          <li key={section.id}>
            <a href={routeHref({ section: section.id })} aria-current={section.id === current ? 'page' : undefined}>
              {section.label}
              {section.id === 'submissions' && blocked ? (
                <span className="nav-badge">
                  <span aria-hidden="true">!</span>
                  <span className="visually-hidden"> (needs attention)</span>
                </span>
              ) : null}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
