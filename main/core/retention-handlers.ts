import type { AppInfo, CallHandlers } from '../../shared/contract.js';
import type { retentionCalls } from '../../shared/retention-contract.js';
import type { AppServices } from './app-services.js';

type RetentionCallName = keyof typeof retentionCalls;

/**
 * Retention's calls of the contract (Settings): the setting and what the background run did, and the change,
 * audited with the front end it came through (`transport`). The days arrive checked by the contract's schema.
 */
export function buildRetentionHandlers(
  services: AppServices,
  transport: AppInfo['transport'],
): Pick<CallHandlers, RetentionCallName> {
  return {
    'retention.get': () => Promise.resolve(services.retention.state()),
    'retention.set': ({ stagedDays }) => Promise.resolve(services.retention.setStagedDays(stagedDays, transport)),
  };
}
