import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ImportFiles } from '../../shared/desktop-contract.js';
import type { EventName } from '../../shared/contract.js';
import { DEFAULT_CODE_LISTS, ORDER_SERVICE_SCOPES } from '../../shared/environment.js';
import { sampleCreateWithClinic } from '../../test/support/orders.js';
import { MemorySecretStore } from '../core/platform/secret-store.js';
import type { ConfirmQuestion, DesktopIntegration, SaveRequest } from '../core/desktop-handlers.js';
import { LOCAL_SANDBOX_ID } from '../core/environments/presets.js';
import { writeTemplateCsv } from '../core/importing/template-csv.js';
import { silentLogger } from '../core/platform/logger.js';
import { openStore } from '../core/store/store.js';
import { CoreClient } from './core-client.js';
import { forkSpawner } from './fork-spawner.js';
import type { HostStartOptions } from './host-protocol.js';

/**
 * The core host as every mode runs it: a real child process started from the host entry (core-host.ts) through
 * the client the shells use, building the real core with its local sandbox, driven only through the protocol.
 * The shell's side is this test: it keeps the secrets (as the desktop app's safeStorage store would), answers
 * dialogs and path grants, and checks what arrives.
 */

function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `rxbatch-${prefix}-`));
}

class RecordingDesktop implements DesktopIntegration {
  readonly chosen: Array<'import' | 'import-folder'> = [];
  files: ImportFiles = { paths: [], skipped: [] };
  /** What the admin answers every native confirmation. */
  answer = true;
  readonly questions: ConfirmQuestion[] = [];
  chooseFiles(purpose: 'import' | 'import-folder'): Promise<ImportFiles> {
    this.chosen.push(purpose);
    return Promise.resolve(this.files);
  }
  takeImportRequests(): ImportFiles {
    return { paths: [], skipped: [{ name: 'scan.pdf', reason: 'not a CSV or HL7 file' }] };
  }
  openDataFolder(): Promise<{ problem?: string }> {
    return Promise.resolve({ problem: 'no file manager here' });
  }
  confirm(question: ConfirmQuestion): Promise<boolean> {
    this.questions.push(question);
    return Promise.resolve(this.answer);
  }
  /** The questions of one kind the admin was asked, in order. */
  asked(kind: ConfirmQuestion['kind']): ConfirmQuestion[] {
    return this.questions.filter((question) => question.kind === kind);
  }
  /** Where the admin "chose" to save an export; null: the dialog was cancelled. */
  savePath: string | null = null;
  readonly saveRequests: SaveRequest[] = [];
  chooseSavePath(request: SaveRequest): Promise<string | null> {
    this.saveRequests.push(request);
    return Promise.resolve(this.savePath);
  }
}

describe('the core host in a child process, driven through its protocol', () => {
  let dir: string;
  let dataDir: string;
  let batches: string;
  let client: CoreClient;
  const secrets = new MemorySecretStore();
  const secretKeys = new Set<string>();
  const desktop = new RecordingDesktop();
  const granted = new Set<string>();
  const asked: string[] = [];
  const seen: Array<{ event: EventName; payload: unknown }> = [];

  beforeAll(async () => {
    dir = tempDir('host');
    dataDir = join(dir, 'data');
    batches = join(dir, 'batches');
    mkdirSync(batches);
    const start: HostStartOptions = {
      dataDir,
      appVersion: '9.9.9',
      transport: 'electron',
      secrets: 'shell',
      importPaths: { kind: 'shell' },
      desktop: true,
      localSandbox: { start: true },
    };
    client = new CoreClient({
      spawn: forkSpawner(),
      start,
      services: {
        secrets: {
          get: (key) => secrets.get(key),
          set: (key, value) => {
            secretKeys.add(key);
            return secrets.set(key, value);
          },
          delete: (key) => secrets.delete(key),
        },
        desktop,
        importPaths: {
          allow: (path) => {
            asked.push(path);
            return Promise.resolve(granted.has(path) ? path : undefined);
          },
        },
      },
      logger: silentLogger,
    });
    client.subscribeAll((event, payload) => seen.push({ event, payload }));
    await client.start();
  }, 60_000);

  afterAll(async () => {
    await client?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('runs the core in another process and answers contract calls through the protocol', async () => {
    expect(client.pid).toBeGreaterThan(0);
    expect(client.pid).not.toBe(process.pid);
    expect(await client.call('app.info', {})).toEqual({
      ok: true,
      value: {
        name: 'Rx Batch',
        version: '9.9.9',
        transport: 'electron',
        dataDir,
        desktop: { fileDialogs: true, openDataFolder: true, confirmRetention: true },
      },
    });
    const environments = await client.request('environments.list', {});
    expect(environments.find((environment) => environment.id === LOCAL_SANDBOX_ID)).toMatchObject({ running: true });
  });

  it('checks inputs in the host as every transport does, and refuses names that are no call', async () => {
    expect(await client.call('products.search', { environmentId: LOCAL_SANDBOX_ID, searchTerm: 7 })).toMatchObject({
      ok: false,
      error: { code: 'invalid-input' },
    });
    expect(await client.call('orders.dropAll', {})).toMatchObject({ ok: false, error: { code: 'unknown-call' } });
    expect(await client.call(42, {})).toMatchObject({ ok: false, error: { code: 'unknown-call' } });
  });

  it('answers a call its channel cannot carry (an input nested too deep to serialise) with an error, and carries on', async () => {
    // 200,000 levels: a 400 KB message, inside the size limit, that JSON.stringify cannot serialise.
    let input: unknown = [];
    for (let level = 0; level < 200_000; level += 1) input = [input];
    const result = await client.call('products.search', input);
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
    const pid = client.pid;
    expect(await client.call('app.info', {})).toMatchObject({ ok: true });
    expect(client.pid).toBe(pid);
  });

  it("keeps the local sandbox's client secret and tokens in the shell's store, asked for over the protocol", async () => {
    expect(await client.request('signin.status', { environmentId: LOCAL_SANDBOX_ID })).toMatchObject({
      signedIn: true,
    });
    // The audit chain's key, the sandbox's client secret and its tokens: all written through the shell.
    expect(secretKeys.size).toBeGreaterThanOrEqual(3);
    for (const key of secretKeys) expect(await secrets.get(key), key).toEqual(expect.any(String));
  });

  it('imports a file by a path the shell grants, with its events forwarded; other paths are refused', async () => {
    const file = join(batches, 'monday.csv');
    writeFileSync(file, writeTemplateCsv([sampleCreateWithClinic(), sampleCreateWithClinic()]));
    const refused = await client.call('import.file', { environmentId: LOCAL_SANDBOX_ID, path: file });
    expect(refused).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(asked).toEqual([file]);

    granted.add(file);
    const imported = await client.request('import.file', {
      environmentId: LOCAL_SANDBOX_ID,
      path: file,
      importId: 'host-1',
    });
    expect(imported).toMatchObject({ status: 'staged', orders: 2 });
    await vi.waitFor(() => {
      const events = seen.map((entry) => entry.event);
      expect(events).toContain('import.progress');
      expect(events).toContain('batches.changed');
    });
  });

  it("serves the desktop calls from the shell's dialogs and file manager", async () => {
    desktop.files = { paths: [join(batches, 'monday.csv')], skipped: [] };
    expect(await client.request('files.choose', { purpose: 'import-folder' })).toEqual({
      ok: true,
      paths: [join(batches, 'monday.csv')],
      skipped: [],
    });
    expect(desktop.chosen).toEqual(['import-folder']);
    expect(await client.request('import.takeRequested', {})).toEqual({
      paths: [],
      skipped: [{ name: 'scan.pdf', reason: 'not a CSV or HL7 file' }],
    });
    expect(await client.request('app.openDataFolder', {})).toEqual({
      ok: false,
      reason: 'failed',
      message: 'The data folder did not open: no file manager here',
    });
  });

  it("writes a log export where the shell's save dialog says, and nothing when it is cancelled", async () => {
    desktop.savePath = null;
    expect(await client.request('log.export', { format: 'csv' })).toEqual({ outcome: 'cancelled' });
    const target = join(dir, 'chosen', 'log.csv');
    mkdirSync(dirname(target), { recursive: true });
    desktop.savePath = target;
    const saved = await client.request('log.export', { format: 'csv', filter: { action: 'environment.' } });
    expect(saved).toMatchObject({ outcome: 'saved', fileName: 'log.csv', masked: true, filtered: true });
    expect(desktop.saveRequests.at(-1)).toEqual({
      suggestedName: expect.stringMatching(/^rx-batch-log-\d{4}-\d{2}-\d{2}\.csv$/) as unknown,
      format: 'csv',
    });
    const lines = readFileSync(target, 'utf8').trimEnd().split('\r\n');
    expect(lines[0]).toMatch(/^seq,at,actor,action,/);
    expect(lines.length - 1).toBe((saved as { count: number }).count);
    expect(lines.slice(1).every((line) => line.split(',')[3]!.startsWith('environment.'))).toBe(true);
    expect(statSync(target).mode & 0o777).toBe(0o600);
  });

  it("asks the shell's native confirmation before an environment is added, and honours a refusal", async () => {
    const profile = {
      id: 'elsewhere',
      name: 'Elsewhere',
      kind: 'remote' as const,
      apiBaseUrl: 'https://orders.example.test/',
      issuer: 'https://id.example.test',
      clientId: 'rx-batch',
      grant: 'client_credentials' as const,
      scopes: [...ORDER_SERVICE_SCOPES],
      createWithClinicVersion: 'v1' as const,
      requestTimeoutMs: 10_000,
      codeLists: DEFAULT_CODE_LISTS,
      concurrency: 4,
      ratePerSecond: 5,
      pollIntervalMs: 60_000,
    };
    desktop.answer = false;
    const refused = await client.call('environments.save', { environment: profile, create: true });
    expect(refused.ok).toBe(false);
    expect(desktop.asked('identity-change').at(-1)).toMatchObject({
      title: 'Add this environment?',
      message: 'Add "Elsewhere"?',
      detail: expect.stringMatching(
        /^Order Service: https:\/\/orders\.example\.test\nIdentity server: https:\/\/id\.example\.test\nClient id: rx-batch\n/,
      ) as unknown,
      confirmLabel: 'Add environment',
    });
    desktop.answer = true;
    expect(await client.request('environments.save', { environment: profile, create: true })).toMatchObject({
      id: 'elsewhere',
    });

    // Removing it is asked too, with what removing does, over the same protocol.
    desktop.answer = false;
    expect(await client.call('environments.remove', { environmentId: 'elsewhere' })).toMatchObject({
      ok: false,
      error: { code: 'forbidden', message: 'Elsewhere was not removed.' },
    });
    expect(desktop.asked('removal').at(-1)).toEqual({
      kind: 'removal',
      title: 'Remove this environment?',
      message: 'Remove "Elsewhere"?',
      detail: 'Removing Elsewhere signs it out and deletes its saved sign-in and client secret. It has no orders.',
      confirmLabel: 'Remove environment',
    });
    desktop.answer = true;
    await client.request('environments.remove', { environmentId: 'elsewhere' });
    const left = await client.request('environments.list', {});
    expect(left.map((environment) => environment.id)).not.toContain('elsewhere');
  });

  it("asks the shell's native confirmation before retention is shortened, and keeps the days on a refusal", async () => {
    desktop.answer = false;
    expect(await client.call('retention.set', { stagedDays: 30 })).toEqual({
      ok: false,
      error: {
        code: 'forbidden',
        message: 'Imported file copies are still kept for 90 days: keeping them for 30 days only was not confirmed.',
      },
    });
    expect(desktop.asked('retention')).toEqual([
      {
        kind: 'retention',
        title: 'Keep imported file copies for less time?',
        message: 'Keep imported file copies for 30 days only?',
        detail: expect.stringContaining('Nothing is dropped now; from now on, copies go 30 days after') as string,
        confirmLabel: 'Keep them 30 days',
      },
    ]);
    expect(await client.request('retention.get', {})).toMatchObject({ stagedDays: 90 });

    desktop.answer = true;
    expect(await client.request('retention.set', { stagedDays: 30 })).toMatchObject({ stagedDays: 30 });
    expect(desktop.asked('retention')).toHaveLength(2);
    // Keeping copies longer drops nothing: no question.
    expect(await client.request('retention.set', { stagedDays: 60 })).toMatchObject({ stagedDays: 60 });
    expect(desktop.asked('retention')).toHaveLength(2);
  });

  it("asks the shell's native confirmation before live intake accepts more from a bound sender, not to narrow it", async () => {
    desktop.answer = true;
    await client.request('profiles.save', {
      profile: {
        name: 'EPR bound',
        columns: {},
        constants: {},
        valueMaps: {},
        hl7Sender: { application: 'EPR-2', facility: 'CLINIC-B', messageType: 'RDE^O11' },
      },
    });
    const set = (clinics: string[], peers: string[]) =>
      client.call('profiles.setBinding', { profile: 'EPR bound', clinics, peers });
    // Binding an unbound sender narrows it: not asked.
    expect(await set(['CLINIC-B'], ['10.1.2.3'])).toMatchObject({ ok: true });
    expect(desktop.asked('binding-change')).toEqual([]);

    // Another address, and a cleared clinic list, would let more through: asked, and kept on a refusal.
    desktop.answer = false;
    expect(await set([], ['10.1.2.3', '10.9.0.0/16'])).toEqual({
      ok: false,
      error: {
        code: 'forbidden',
        message: 'Who may send as EPR-2^CLINIC-B is unchanged: accepting more from it was not confirmed.',
      },
    });
    expect(desktop.asked('binding-change')).toEqual([
      {
        kind: 'binding-change',
        title: 'Accept more from this sender?',
        message: 'Accept more from EPR-2^CLINIC-B?',
        confirmLabel: 'Change who may send',
        detail:
          'Live intake would accept more from EPR-2^CLINIC-B (profile "EPR bound"): addresses added: 10.9.0.0/16; ' +
          'no longer limited to its clinics: it may order and cancel for any clinic.\n\n' +
          'Now: clinics CLINIC-B; peers 10.1.2.3.\n\nAfter: peers 10.1.2.3, 10.9.0.0/16.\n\n' +
          'Only change this if the sender’s system really moved or now serves these clinics.',
      },
    ]);
    expect((await client.request('profiles.bindings', {}))[0]).toMatchObject({
      clinics: ['CLINIC-B'],
      peers: ['10.1.2.3'],
    });
    desktop.answer = true;
    expect(await set([], ['10.1.2.3', '10.9.0.0/16'])).toMatchObject({ ok: true });
    // Removing an address narrows it again: not asked.
    expect(await set([], ['10.9.0.0/16'])).toMatchObject({ ok: true });
    expect(desktop.asked('binding-change')).toHaveLength(2);
  });

  it('stops cleanly: the core closes its store (the data directory is free again) and the host exits', async () => {
    const pid = client.pid;
    await client.stop();
    expect(client.state).toBe('stopped');
    expect(client.pid).toBeUndefined();
    expect(() => process.kill(pid!, 0)).toThrow();
    const store = openStore({ dataDir });
    try {
      expect(store.batches.list(LOCAL_SANDBOX_ID).length).toBe(1);
    } finally {
      store.close();
    }
    expect(await client.call('app.info', {})).toMatchObject({ ok: false, error: { code: 'disconnected' } });
  }, 30_000);
});
