import { StagingError } from '../../core/staging/staging-deps.js';
import { stagingFor } from '../../core/staging/staging-handlers.js';
import type { CliContext } from '../cli-context.js';
import { EXIT, InputError } from '../cli-errors.js';
import { plural } from '../../../shared/count-words.js';

/**
 * `accept BATCH`: queues the batch's valid orders in the outbox in one transaction (the exact request for the
 * batch's route); invalid ones stay staged. Exit 1 when some stay (they need fixing), else 0.
 */
export function accept(ctx: CliContext, batchId: number): number {
  let result;
  try {
    result = stagingFor(ctx.services).accept(batchId);
  } catch (error) {
    if (error instanceof StagingError) throw new InputError(error.message);
    throw error;
  }
  if (ctx.options.json) ctx.json(result);
  else {
    ctx.line(
      `Accepted ${plural(result.accepted, 'order')} of batch ${batchId} into the outbox of ${result.environmentId} (route ${result.route}).`,
    );
    if (result.cancelled > 0) ctx.line(`${plural(result.cancelled, 'HL7 cancel message')} became cancel requests.`);
    if (result.staying > 0)
      ctx.line(
        `${plural(result.staying, 'order')} ${result.staying === 1 ? 'stays' : 'stay'} staged: see rx-batch batch show ${batchId}.`,
      );
    if (result.accepted > 0 || result.cancelled > 0) {
      ctx.line(`Next: rx-batch submit --env ${result.environmentId} --until-idle`);
    }
  }
  return result.staying > 0 ? EXIT.attention : EXIT.ok;
}
