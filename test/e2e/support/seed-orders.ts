import { sampleCreateWithClinic } from '../../support/orders.js';
import type { CreateWithClinicV1Input } from '../../../shared/orders.js';
import { toWireJson } from '../../../shared/wire-json.js';
import type { BrowserModeApp } from './browser-mode.js';
import { probeBridge } from './bridge-client.js';

/**
 * Orders enter the outbox the way an admin's batch does (until the import screen drives this in the browser):
 * a JSON file of create-with-clinic bodies uploaded with `import.file`, then `batches.accept`, both over the
 * bridge with the launch secret.
 */

async function call(app: BrowserModeApp, name: string, input: object): Promise<unknown> {
  const result = await probeBridge(app, { secret: app.secret, call: { id: 1, call: name, input } });
  if (result.refused !== false) throw new Error(`the bridge refused ${name}: ${JSON.stringify(result)}`);
  const answer = result.answer as { ok: boolean; value?: unknown; error?: unknown };
  if (!answer.ok) throw new Error(`${name} failed: ${JSON.stringify(answer.error)}`);
  return answer.value;
}

export interface SeededBatch {
  batchId: number;
  clinicCode: string;
  clinicOrderIds: string[];
}

export async function seedOrders(
  app: BrowserModeApp,
  environmentId: string,
  options: {
    count: number;
    prefix: string;
    clinicCode?: string;
    /** Changes one order's body (say, a patient the service refuses). */
    mutate?: (body: CreateWithClinicV1Input, index: number) => void;
  },
): Promise<SeededBatch> {
  const clinicCode = options.clinicCode ?? 'E2E-CLINIC';
  const clinicOrderIds = Array.from(
    { length: options.count },
    (_, i) => `${options.prefix}-${String(i + 1).padStart(3, '0')}`,
  );
  const bodies = clinicOrderIds.map((clinicOrderId, index) => {
    const body = sampleCreateWithClinic({ clinicOrderId, clinicCode });
    options.mutate?.(body, index);
    return body;
  });
  // Uploaded as the page uploads a file: over the bridge, a path is read only inside the host's --import-dir.
  const upload = { name: `${options.prefix}.json`, content: toWireJson(bodies) };
  const staged = (await call(app, 'import.file', { environmentId, upload })) as {
    status: string;
    batchId?: number;
    invalid?: number;
  };
  if (staged.status !== 'staged' || staged.batchId === undefined || staged.invalid !== 0) {
    throw new Error(`the seed batch was not staged cleanly: ${JSON.stringify(staged)}`);
  }
  const accepted = (await call(app, 'batches.accept', { batchId: staged.batchId })) as { accepted: number };
  if (accepted.accepted !== options.count) throw new Error(`accepted ${accepted.accepted} of ${options.count}`);
  return { batchId: staged.batchId, clinicCode, clinicOrderIds };
}
