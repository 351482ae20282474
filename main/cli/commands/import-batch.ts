import type { CliContext } from '../cli-context.js';
import { EXIT, InputError } from '../cli-errors.js';
import { stageJsonBatch } from '../stage-json-batch.js';

/** `import FILE --env ENV`: stages the file as a batch; invalid orders are listed with their position and field. */
export function importBatch(ctx: CliContext, file: string, environmentId: string): number {
  const { registry, store } = ctx.services;
  if (!registry.find(environmentId)) throw new InputError(`there is no environment "${environmentId}"`);
  const staged = stageJsonBatch(store, environmentId, file);
  for (const problem of staged.problems) {
    ctx.warn(`${file}: order ${problem.index + 1}: ${problem.field}: ${problem.message}`);
  }
  if (ctx.options.json) {
    ctx.json({ batchId: staged.batchId, orders: staged.orders, valid: staged.valid, invalid: staged.invalid });
  } else {
    ctx.line(
      `Staged batch ${staged.batchId}: ${staged.orders} orders, ${staged.valid} valid, ${staged.invalid} invalid.`,
    );
    if (staged.valid > 0) ctx.line(`Next: rx-batch accept ${staged.batchId}`);
  }
  return staged.invalid > 0 ? EXIT.attention : EXIT.ok;
}
