import { Outbox } from '../../main/core/outbox/outbox.js';
import { createOrderServiceClient } from '../../main/core/service/client.js';
import { openStore } from '../../main/core/store/store.js';
import { LOCAL } from '../../main/core/store/testing/store-fixtures.js';
import { clientCredentialsTokenSource } from '../support/client-credentials.js';

/**
 * The submitting process of the crash test: opens the store in <dataDir>, sends until idle, exits 0. The parent
 * SIGKILLs it at random moments and starts it again; each start recovers what the last one left `sending`.
 *
 *   node --import tsx test/outbox/crash-child.ts <dataDir> <apiUrl> <issuer> <clientId> <secret>
 */

const [dataDir, apiBaseUrl, issuer, clientId, clientSecret] = process.argv.slice(2);
if (!dataDir || !apiBaseUrl || !issuer || !clientId || !clientSecret) {
  process.stderr.write('usage: crash-child.ts <dataDir> <apiUrl> <issuer> <clientId> <secret>\n');
  process.exit(2);
}

const store = openStore({ dataDir });
const client = createOrderServiceClient({
  apiBaseUrl,
  tokens: clientCredentialsTokenSource({ issuer, clientId, clientSecret }),
  timeoutMs: 10_000,
  userAgent: 'RxBatch/0.1.0-crash-test',
  createWithClinicVersion: 'v1',
  warmConnections: 4,
});
const outbox = new Outbox(
  { store, clientFor: () => client },
  {
    concurrency: 4,
    ratePerSecond: 150,
    baseDelayMs: 10,
    maxDelayMs: 200,
    reconcileDelayMs: 20,
    breakerThreshold: 8,
    breakerCooldownMs: 100,
  },
);
outbox.start(LOCAL.id);
process.stdout.write('ready\n');
const result = await outbox.runUntilIdle(LOCAL.id);
await outbox.stop();
store.close();
process.stdout.write(`${JSON.stringify({ outcome: result.outcome, counts: result.counts })}\n`);
