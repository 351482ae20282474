import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CodeLists } from '../../../../shared/environment.js';
import type { CreateWithClinicV1Input } from '../../../../shared/orders.js';
import { verhoeffCheckDigit } from '../../../../shared/snomed.js';
import { sampleCreateWithClinic } from '../../../../test/support/orders.js';
import type { MappingProfile } from '../../model/mapping-profile.js';
import { writeRde011 } from '../../importing/rde-writer.js';
import { writeTemplateCsv } from '../../importing/template-csv.js';
import { openStore, type Store } from '../../store/store.js';
import { LOCAL, removeDir, tempDataDir } from '../../store/testing/store-fixtures.js';
import { StagingService, type StagingServiceDeps } from '../staging-service.js';

/** Shared set-up for staging tests: a store with the local profile, a staging service, files to import. */

export interface StagingFixture {
  store: Store;
  staging: StagingService;
  dataDir: string;
  /** Writes a file into the fixture's own directory and returns its absolute path. */
  file(name: string, content: string | Buffer): string;
  close(): void;
}

export function stagingFixture(
  options: { codeLists?: CodeLists; deps?: Partial<StagingServiceDeps> } = {},
): StagingFixture {
  const dataDir = tempDataDir('rx-staging-');
  const store = openStore({ dataDir: join(dataDir, 'data') });
  store.environments.upsert({ ...LOCAL, codeLists: options.codeLists ?? LOCAL.codeLists });
  const staging = new StagingService({
    store,
    codeListsFor: (environmentId) => {
      const environment = store.environments.get(environmentId);
      if (!environment) throw new Error(`no environment ${environmentId}`);
      return environment.codeLists;
    },
    ...options.deps,
  });
  return {
    store,
    staging,
    dataDir,
    file(name, content) {
      const path = join(dataDir, name);
      writeFileSync(path, content);
      return path;
    },
    close() {
      if (store.isOpen) store.close();
      removeDir(dataDir);
    },
  };
}

/**
 * A fixture whose store holds one discarded batch of three staged orders, closed again so the services under test
 * open it: what retention drops once its days have passed.
 */
export async function discardedBatchFixture(): Promise<StagingFixture> {
  const f = stagingFixture();
  const outcome = await f.staging.importFile({
    environmentId: LOCAL.id,
    path: f.file('discarded.csv', templateCsv([uniqueOrder(), uniqueOrder(), uniqueOrder()])),
  });
  if (outcome.status !== 'staged') throw new Error(`expected a staged batch, got ${outcome.status}`);
  f.staging.discard(outcome.batchId);
  f.store.close();
  return f;
}

/** An 18-digit dm+d code (partition 10, valid check digit), beyond JavaScript's safe integers. */
export function eighteenDigitDmd(n = 1): string {
  const body = `${10_100_000 + n}1000001` + '10';
  return `${body}${verhoeffCheckDigit(body)}`;
}

let sequence = 0;

/** A valid order with a unique clinic order id (a sandbox keeps every order it created). */
export function uniqueOrder(
  overrides: Parameters<typeof sampleCreateWithClinic>[0] = {},
  prefix = 'STG',
): CreateWithClinicV1Input {
  sequence += 1;
  return sampleCreateWithClinic({
    clinicOrderId: `${prefix}-${process.pid}-${Date.now().toString(36)}-${sequence}`,
    ...overrides,
  });
}

/** Returns a copy of an order with one field (a dotted path) set; for making bad rows. */
export function withField<T extends CreateWithClinicV1Input>(order: T, path: string, value: unknown): T {
  // Through JSON: the sample shares one address object between home and delivery, and only one should change.
  const copy = JSON.parse(JSON.stringify(order)) as T;
  const parts = path.split('.');
  let target = copy as unknown as Record<string, unknown>;
  for (const part of parts.slice(0, -1)) target = target[part] as Record<string, unknown>;
  if (value === undefined) delete target[parts.at(-1)!];
  else target[parts.at(-1)!] = value;
  return copy;
}

export const templateCsv = (orders: CreateWithClinicV1Input[]) => writeTemplateCsv(orders);

/** What HL7 cannot carry (payment, courier, currency) comes from a profile's constants. */
export const HL7_PROFILE: MappingProfile = {
  name: 'hl7-clinic',
  columns: {},
  constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' },
  valueMaps: {},
};

/** Orders as an HL7 file of RDE^O11 messages, segments ending in `\r`; `sender` sets MSH-3 and MSH-4. */
export function hl7File(
  orders: CreateWithClinicV1Input[],
  orderControl: 'NW' | 'CA' = 'NW',
  sender: { application?: string; facility?: string } = {},
): string {
  return orders
    .map((order, index) =>
      writeRde011(order, {
        timestamp: '20250101120000',
        controlId: `MSG-${index + 1}`,
        orderControl,
        ...(sender.application !== undefined ? { sendingApplication: sender.application } : {}),
        ...(sender.facility !== undefined ? { sendingFacility: sender.facility } : {}),
      }),
    )
    .join('\r')
    .concat('\r');
}
