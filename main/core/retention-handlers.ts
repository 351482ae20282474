import type { AppInfo, CallHandlers } from '../../shared/contract.js';
import { ContractError } from '../../shared/errors.js';
import type { retentionCalls } from '../../shared/retention-contract.js';
import type { AppServices } from './app-services.js';
import { retentionConfirmQuestion } from './confirm-question.js';
import type { DesktopIntegration } from './desktop-handlers.js';
import { keptFor } from './retention-question.js';

type RetentionCallName = keyof typeof retentionCalls;

/**
 * Retention's calls of the contract (Settings): the setting and what the background run did, and the change,
 * audited with the front end it came through (`transport`). The days arrive checked by the contract's schema.
 * A shorter time drops copies for good, so the desktop app asks the admin in a native dialog first
 * (docs/security.md, finding 21); without one (browser mode, direct calls) the page's question is all there is.
 */
export function buildRetentionHandlers(
  services: AppServices,
  transport: AppInfo['transport'],
  desktop?: Pick<DesktopIntegration, 'confirm'>,
): Pick<CallHandlers, RetentionCallName> {
  return {
    'retention.get': () => Promise.resolve(services.retention.state()),
    'retention.set': async ({ stagedDays }) => {
      const question = desktop ? services.retention.shorteningQuestion(stagedDays) : undefined;
      // Script in the page must not shorten it alone: the desktop asks the admin.
      if (desktop && question && !(await desktop.confirm(retentionConfirmQuestion(question)))) {
        throw new ContractError({
          code: 'forbidden',
          message:
            `Imported file copies are still kept ${keptFor(question.previousDays)}: keeping them ` +
            `${keptFor(question.days)} only was not confirmed.`,
        });
      }
      return services.retention.setStagedDays(stagedDays, transport);
    },
  };
}
