import type { AppInfo } from '../../../../shared/contract.js';
import type { EnvironmentView } from '../../../../shared/environment.js';
import { ImportScreen } from '../import/ImportScreen.js';
import { IntakeScreen } from '../intake/IntakeScreen.js';
import { LogScreen } from '../log/LogScreen.js';
import { LookupsScreen } from '../lookups/LookupsScreen.js';
import { OrdersScreen } from '../orders/OrdersScreen.js';
import { SettingsScreen } from '../settings/SettingsScreen.js';
import { SignInScreen } from '../signin/SignInScreen.js';
import { SubmissionsScreen } from '../submissions/SubmissionsScreen.js';
import type { Route } from './route.js';

/** The open section, for the selected environment (keyed by it, so nothing of one shows under another). */
export function Screen({ route, info, environment }: { route: Route; info: AppInfo; environment: EnvironmentView }) {
  const key = `${route.section}-${environment.id}`;
  switch (route.section) {
    case 'submissions':
      return <SubmissionsScreen key={key} environment={environment} />;
    case 'import':
      return (
        <ImportScreen
          key={key}
          environment={environment}
          desktop={info.desktop?.fileDialogs ?? false}
          importFolders={info.importFolders ?? []}
          reopen={route.batch}
        />
      );
    case 'intake':
      return <IntakeScreen key={key} environment={environment} desktop={info.desktop?.fileDialogs ?? false} />;
    case 'orders':
      return <OrdersScreen key={key} environment={environment} openOrderId={route.orderId} />;
    case 'signin':
      return <SignInScreen key={key} environment={environment} />;
    case 'log':
      return <LogScreen key={key} environment={environment} />;
    case 'lookups':
      return <LookupsScreen key={key} environment={environment} initialSearch={route.search} from={route.batch} />;
    case 'settings':
      return <SettingsScreen key={key} info={info} environment={environment} />;
  }
}
