import { useEffect, useState } from 'react';
import type { AppInfo } from '../../../../shared/contract.js';
import type { EnvironmentView } from '../../../../shared/environment.js';
import { useApi } from '../../api/api-context.js';
import { AppHeader } from '../app-header/AppHeader.js';
import { ConnectionCheck } from '../connection/ConnectionCheck.js';
import { CourierPriceList } from '../couriers/CourierPriceList.js';
import { defaultEnvironment } from '../environments/environment-labels.js';
import { EnvironmentList } from '../environments/EnvironmentList.js';
import { ProductSearch } from '../products/ProductSearch.js';

interface Props {
  info: AppInfo;
  initialEnvironments: EnvironmentView[];
}

/** The foundation screen: environments, and what can be done with the selected one. */
export function Workspace({ info, initialEnvironments }: Props) {
  const api = useApi();
  const [environments, setEnvironments] = useState(initialEnvironments);
  const [chosenId, setChosenId] = useState<string>();
  const selected = environments.find((environment) => environment.id === chosenId) ?? defaultEnvironment(environments);

  useEffect(() => api.on('environments.changed', setEnvironments), [api]);

  return (
    <>
      <AppHeader info={info} />
      <main className="workspace">
        <EnvironmentList environments={environments} selectedId={selected?.id} onSelect={setChosenId} />
        {selected ? (
          <>
            <ConnectionCheck key={`connection-${selected.id}`} environment={selected} />
            <CourierPriceList key={`couriers-${selected.id}`} environmentId={selected.id} />
            <ProductSearch key={`products-${selected.id}`} environmentId={selected.id} />
          </>
        ) : (
          <p>No environment is configured.</p>
        )}
      </main>
    </>
  );
}
