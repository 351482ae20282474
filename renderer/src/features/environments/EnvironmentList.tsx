import type { EnvironmentView } from '../../../../shared/environment.js';
import { GRANT_LABELS, kindLabel, stateLabel } from './environment-labels.js';

interface Props {
  environments: EnvironmentView[];
  selectedId: string | undefined;
  onSelect: (id: string) => void;
}

export function EnvironmentList({ environments, selectedId, onSelect }: Props) {
  return (
    <section aria-labelledby="environments-heading" className="panel">
      <h2 id="environments-heading">Environments</h2>
      <table>
        <caption className="visually-hidden">Environments Rx Batch can work with; choose one</caption>
        <thead>
          <tr>
            <th scope="col">Use</th>
            <th scope="col">Name</th>
            <th scope="col">Kind</th>
            <th scope="col">API URL</th>
            <th scope="col">Sign-in</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {environments.map((environment) => {
            const inputId = `environment-${environment.id}`;
            const selected = environment.id === selectedId;
            return (
              <tr key={environment.id} className={selected ? 'selected' : undefined}>
                <td>
                  <input
                    type="radio"
                    name="environment"
                    id={inputId}
                    checked={selected}
                    onChange={() => onSelect(environment.id)}
                  />
                </td>
                <th scope="row">
                  <label htmlFor={inputId}>{environment.name}</label>
                </th>
                <td>{kindLabel(environment)}</td>
                <td>
                  <code className="url">{environment.apiBaseUrl}</code>
                </td>
                <td>{GRANT_LABELS[environment.grant]}</td>
                <td>{stateLabel(environment)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
