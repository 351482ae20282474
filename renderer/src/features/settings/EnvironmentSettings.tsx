import { useState } from 'react';
import { GRANT_LABELS, kindLabel, stateLabel } from '../environments/environment-labels.js';
import { useLive } from '../live/live-context.js';
import { EnvironmentForm } from './EnvironmentForm.js';
import { RemoveEnvironment } from './RemoveEnvironment.js';

type Editing = { mode: 'edit'; id: string } | { mode: 'add' } | undefined;

/**
 * Every environment with its API profile; edit one, add another (a second account, a staging service), or remove
 * one (what that does said first).
 */
export function EnvironmentSettings({ selectedId }: { selectedId: string }) {
  const { environments } = useLive();
  const [editing, setEditing] = useState<Editing>();
  const [saved, setSaved] = useState<string>();
  const current = editing?.mode === 'edit' ? environments.find((e) => e.id === editing.id) : undefined;

  return (
    <section aria-labelledby="environments-heading" className="panel">
      <div className="panel-head">
        <h3 id="environments-heading">Environments</h3>
        <button
          type="button"
          className="secondary"
          onClick={() => {
            setSaved(undefined);
            setEditing({ mode: 'add' });
          }}
        >
          Add environment
        </button>
      </div>
      <table>
        <caption className="visually-hidden">Environments Rx Batch can work with</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Kind</th>
            <th scope="col">API URL</th>
            <th scope="col">Sign-in</th>
            <th scope="col">State</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {environments.map((environment) => (
            <tr key={environment.id} className={environment.id === selectedId ? 'selected' : undefined}>
              <th scope="row">
                {environment.name}
                {environment.id === selectedId ? <span className="hint"> (in use)</span> : null}
              </th>
              <td>{kindLabel(environment)}</td>
              <td>
                <code className="url">{environment.apiBaseUrl}</code>
              </td>
              <td>
                {GRANT_LABELS[environment.grant]}
                {environment.clientId ? '' : ' (no client id yet)'}
              </td>
              <td>{stateLabel(environment)}</td>
              <td>
                <div className="button-row">
                  <button
                    type="button"
                    className="secondary"
                    onClick={() => {
                      setSaved(undefined);
                      setEditing({ mode: 'edit', id: environment.id });
                    }}
                  >
                    Edit<span className="visually-hidden"> {environment.name}</span>
                  </button>
                  {environment.kind === 'local-sandbox' ? null : (
                    <RemoveEnvironment
                      environment={environment}
                      onRemoved={(removal) => {
                        setEditing(undefined);
                        setSaved(
                          `Removed ${removal.name}.` +
                            (removal.kept > 0
                              ? ' Its orders are kept with their history; the Log still lists them.'
                              : ''),
                        );
                      }}
                    />
                  )}
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p role="status" className="hint">
        {saved ?? ''}
      </p>
      {editing ? (
        <EnvironmentForm
          key={editing.mode === 'edit' ? editing.id : 'new'}
          environment={current}
          onCancel={() => setEditing(undefined)}
          onSaved={(environment) => {
            setEditing(undefined);
            setSaved(`Saved ${environment.name}. Its pace and service address apply now.`);
          }}
        />
      ) : null}
    </section>
  );
}
