import { acceptBatch } from '../accept-batch.js';
import type { CliContext } from '../cli-context.js';
import { EXIT } from '../cli-errors.js';

export function accept(ctx: CliContext, batchId: number): number {
  const result = acceptBatch(ctx.services.store, batchId);
  if (ctx.options.json) ctx.json(result);
  else {
    ctx.line(`Accepted ${result.accepted} orders of batch ${batchId} into the outbox of ${result.environmentId}.`);
    if (result.duplicates.length > 0) {
      ctx.line(`${result.duplicates.length} orders were rejected: already in the outbox from another batch.`);
    }
    if (result.accepted > 0) ctx.line(`Next: rx-batch submit --env ${result.environmentId} --until-idle`);
  }
  return result.duplicates.length > 0 ? EXIT.attention : EXIT.ok;
}
