import type { AppInfo, CallHandlers } from '../../shared/contract.js';
import type { AppServices } from './app-services.js';
import { buildLogHandlers } from './audit/log-handlers.js';
import { buildDesktopHandlers, type DesktopIntegration } from './desktop-handlers.js';
import { buildEnrichmentHandlers } from './enrichment/enrichment-handlers.js';
import type { ImportPathPolicy } from './import-path-policy.js';
import { buildBindingHandlers } from './intake/binding-handlers.js';
import { buildIntakeHandlers } from './intake/intake-handlers.js';
import { buildEnvironmentHandlers } from './environments/environment-handlers.js';
import { buildLookupHandlers } from './lookup/lookup-handlers.js';
import { buildOutboxHandlers } from './outbox/outbox-handlers.js';
import { buildRetentionHandlers } from './retention-handlers.js';
import { buildSigninHandlers } from './signin/signin-handlers.js';
import { buildStagingHandlers } from './staging/staging-handlers.js';
import { buildOrdersHandlers } from './tracking/orders-handlers.js';

/**
 * Every contract call, composed from each capability's own handlers over the core's services. Inputs arrive parsed
 * by the contract; outputs are checked against it by the dispatch, so nothing here can leak a token or a request
 * body by accident.
 */
export function buildHandlers(
  services: AppServices,
  info: AppInfo,
  desktop: DesktopIntegration | undefined,
  /** Which files `import.file` may read: also which folders the intake may watch. */
  importPaths: ImportPathPolicy,
): CallHandlers {
  const exportDeps = { dataDir: info.dataDir, ...(desktop ? { desktop } : {}) };
  return {
    'app.info': () => Promise.resolve(info),
    ...buildDesktopHandlers(desktop),
    ...buildEnvironmentHandlers(services, desktop),
    ...buildSigninHandlers(services),
    ...buildLookupHandlers(services),
    ...buildOutboxHandlers(services),
    ...buildOrdersHandlers(services, info.transport),
    ...buildLogHandlers(services, exportDeps),
    ...buildStagingHandlers(services, exportDeps),
    ...buildEnrichmentHandlers(services),
    ...buildIntakeHandlers(services, importPaths),
    ...buildBindingHandlers(services, desktop),
    ...buildRetentionHandlers(services, info.transport, desktop),
  };
}
