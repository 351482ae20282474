import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RawMllpSocket, frame, sendWithLibrary } from '../../../test/support/hl7-client.js';
import type { EventPayload } from '../../../shared/contract.js';
import { LOCAL_SANDBOX_ID } from '../environments/presets.js';
import { importFolders } from '../import-path-policy.js';
import { writeRde011 } from '../importing/rde-writer.js';
import { uniqueOrder } from '../staging/testing/staging-fixtures.js';
import { openTestCore, type TestCore } from '../testing/test-core.js';

// Issue #17, "Seeing it": the app's own intake through the contract. A real listener on 127.0.0.1 fed by the
// tests' independent MLLP client; the status says who is connected, what arrived per minute, the problems (no
// patient data) and the batches fed; a page cannot make the core watch a folder the import policy does not allow.

const SENDER = { sendingApplication: 'EPR-7', sendingFacility: 'CLINIC-H' };
let seq = 0;
const message = (controlId: string) =>
  writeRde011(uniqueOrder({}, `APP${++seq}`), { controlId, timestamp: '20261126101500', ...SENDER });

let t: TestCore | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await t?.close();
  t = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('intake through the contract', () => {
  it('reports peers, the per-minute count, problems without patient data and the batches fed', async () => {
    t = await openTestCore('app-intake');
    const changes: Array<EventPayload<'intake.changed'>> = [];
    t.core.events.subscribe('intake.changed', (status) => changes.push(status));
    const idle = await t.api.call('intake.status', {});
    expect(idle).toMatchObject({ running: false, channels: [], allowedFolders: null });

    const started = await t.api.call('intake.start', { environmentId: LOCAL_SANDBOX_ID, port: 0, onArrival: 'hold' });
    expect(started.running).toBe(true);
    const [listener] = started.channels;
    expect(listener).toMatchObject({ kind: 'mllp', state: 'listening', connections: 0, received: 0 });
    expect(listener!.address).toMatch(/^127\.0\.0\.1:\d+$/);
    const port = Number(listener!.address.split(':')[1]);
    expect(changes.at(-1)?.running).toBe(true);

    // A client connected and sending: it is seen as a peer while its connection is open.
    const raw = await RawMllpSocket.open(port);
    raw.write(frame(message('CTL-A1')));
    const [first] = await raw.waitFor(1);
    expect(first!.get('MSA.1')).toBe('AA');
    const during = await t.api.call('intake.status', {});
    expect(during.channels[0]).toMatchObject({ connections: 1, peers: ['127.0.0.1'], received: 1 });
    raw.close();

    // More through the library: two valid, one that cannot be read (AR), one that can never be an order (AE).
    const patient = uniqueOrder({ surname: 'Zebedee-Quorn' }, 'SECRET');
    const ae = writeRde011(patient, { controlId: 'CTL-AE', timestamp: '20261126101500', ...SENDER }).replace(
      '\rORC|NW|',
      '\rORC|XO|',
    );
    const adt = message('CTL-ADT').replace('RDE^O11^RDE_O11', 'ADT^A01^ADT_A01');
    const acks = await sendWithLibrary(port, [message('CTL-A2'), message('CTL-A3'), adt, ae]);
    expect(acks.map((ack) => ack.get('MSA.1'))).toEqual(['AA', 'AA', 'AR', 'AE']);

    // Staging follows the ACK: wait until the batch of the day holds what was staged.
    let status = await t.api.call('intake.status', {});
    for (let i = 0; i < 100 && (status.channels[0]!.batches[0]?.count ?? 0) < 4; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      status = await t.api.call('intake.status', {});
    }
    const channel = status.channels[0]!;
    expect(channel.received).toBe(5);
    expect(channel.perMinute).toHaveLength(60);
    // The app's listener is on 127.0.0.1 with no allow-list: the screen says this computer only by its address.
    expect(channel.allowList).toBeNull();
    expect(channel.perMinute.reduce((a, b) => a + b, 0)).toBe(5);
    expect(channel.perMinute.at(-1)! + channel.perMinute.at(-2)!).toBe(5);
    // Batches fed: the sender's batch of the day, with the four staged messages (AA and AE; AR is never staged).
    expect(channel.batches).toHaveLength(1);
    expect(channel.batches[0]!.count).toBe(4);
    expect(channel.batches[0]!.name).toMatch(/^EPR-7\^CLINIC-H \d{4}-\d{2}-\d{2} \(MLLP\)$/);
    const listed = await t.api.call('batches.list', { environmentId: LOCAL_SANDBOX_ID });
    expect(listed.map((b) => b.id)).toContain(channel.batches[0]!.batchId);
    // Problems, newest first: control id, peer, outcome, reason from HL7 error names; no patient field.
    // The AA messages too: no profile gives this sender's payment type, courier and currency, so each waits for
    // the admin (AA with a warning ERR), and the screen says so rather than "None".
    expect(channel.problems.map((p) => [p.controlId, p.outcome])).toEqual([
      ['CTL-AE', 'AE'],
      ['CTL-ADT', 'AR'],
      ['CTL-A3', 'review'],
      ['CTL-A2', 'review'],
      ['CTL-A1', 'review'],
    ]);
    expect(channel.problems[1]!.reason).toBe('Unsupported message type (MSH-9)');
    expect(channel.problems[2]!.reason).toBe(
      "Staged with problems to fix in the sender's batch of the day before it can be sent: the sender's profile here gives no payment type, courier or currency (an HL7 order does not carry them)",
    );
    expect(channel.problems[0]!.peer).toMatch(/^127\.0\.0\.1:\d+$/);
    const shown = JSON.stringify(channel.problems);
    expect(shown).not.toContain('Zebedee-Quorn');
    expect(shown).not.toContain('1980');

    // Stopped: the port is closed and the channel says so; the intake stops with the core too.
    const stopped = await t.api.call('intake.stop', {});
    expect(stopped.running).toBe(false);
    expect(stopped.channels[0]).toMatchObject({ state: 'stopped', connections: 0, peers: [] });
    await expect(RawMllpSocket.open(port)).rejects.toThrow();
    expect(changes.some((c) => c.channels[0]?.received === 5)).toBe(true);
    const log = await t.api.call('log.list', { action: 'intake.st' });
    const startStop = log.entries.filter((e) => e.action === 'intake.started' || e.action === 'intake.stopped');
    expect(startStop.map((e) => [e.action, e.actor])).toEqual([
      ['intake.stopped', 'user'],
      ['intake.started', 'user'],
    ]);
  });

  it("the desktop's policy (paths handed over): watches the folder chosen in its dialog, no other", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rxbatch-intake-desktop-'));
    dirs.push(dir);
    const chosen = join(dir, 'chosen');
    const other = join(dir, 'other');
    mkdirSync(chosen);
    mkdirSync(other);
    // As the desktop shell answers: only what the admin handed over (main/electron/path-grants.ts).
    t = await openTestCore('app-intake-desktop', {
      importPaths: {
        allow: (path, purpose) => Promise.resolve(path === chosen && purpose === 'watch' ? path : undefined),
      },
    });
    expect((await t.api.call('intake.status', {})).allowedFolders).toEqual([]);
    const start = (folder: string) =>
      t!.api.call('intake.start', { environmentId: LOCAL_SANDBOX_ID, onArrival: 'hold', folders: [folder] });
    await expect(start(other)).rejects.toMatchObject({
      code: 'forbidden',
      message: `"${other}" was not chosen in this app: choose it with "Choose folder…", or run \`rx-batch serve --watch FOLDER\`, which may watch any folder.`,
      issues: [{ path: 'folders' }],
    });
    await expect(start(join(chosen, '..', 'other'))).rejects.toMatchObject({ code: 'forbidden' });
    const running = await start(chosen);
    expect(running.channels).toMatchObject([{ kind: 'folder', address: chosen, state: 'watching' }]);
  });

  it('refuses a second start, a port in use, and a folder outside the import policy', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rxbatch-intake-folders-'));
    dirs.push(dir);
    const allowed = join(dir, 'allowed');
    const inside = join(allowed, 'clinic-a');
    const outside = join(dir, 'elsewhere');
    mkdirSync(inside, { recursive: true });
    mkdirSync(outside);
    t = await openTestCore('app-intake-policy', { importPaths: await importFolders([allowed]) });
    const start = (input: { port?: number; folders?: string[] }) =>
      t!.api.call('intake.start', { environmentId: LOCAL_SANDBOX_ID, onArrival: 'hold', ...input });

    expect((await t.api.call('intake.status', {})).allowedFolders).toEqual([allowed]);
    // Each refusal names the folder and why; whether a path outside the policy exists is never said.
    const outsideSaid = (folder: string) =>
      `"${folder}" is not inside the folders Rx Batch may import from (${allowed}): choose one of them or a folder ` +
      'inside one, start Rx Batch with --import-dir FOLDER, or run `rx-batch serve --watch FOLDER`, which may watch any folder.';
    await expect(start({ folders: [outside] })).rejects.toMatchObject({
      code: 'forbidden',
      message: outsideSaid(outside),
    });
    const missing = join(dir, 'no-such-folder');
    await expect(start({ folders: [missing] })).rejects.toMatchObject({ message: outsideSaid(missing) });
    await expect(start({ folders: [join(allowed, '..', 'elsewhere')] })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(start({ folders: ['relative/path'] })).rejects.toMatchObject({
      code: 'forbidden',
      message: '"relative/path" is not a full path: give the folder from the top (such as /srv/drop).',
    });
    // Inside the policy, a folder that is not there is said to be so.
    await expect(start({ folders: [join(allowed, 'not-yet')] })).rejects.toMatchObject({
      message: `"${join(allowed, 'not-yet')}" is not a folder that can be read here.`,
    });
    // No host in the contract: a page cannot ask for another interface.
    await expect(
      t.api.call('intake.start', {
        environmentId: LOCAL_SANDBOX_ID,
        onArrival: 'hold',
        port: 0,
        host: '0.0.0.0',
      } as never),
    ).rejects.toMatchObject({ code: 'invalid-input' });
    await expect(
      t.api.call('intake.start', { environmentId: LOCAL_SANDBOX_ID, onArrival: 'hold' }),
    ).rejects.toMatchObject({ code: 'invalid-input' });

    const running = await start({ port: 0, folders: [inside] });
    expect(running.channels.map((c) => [c.kind, c.state])).toEqual([
      ['mllp', 'listening'],
      ['folder', 'watching'],
    ]);
    await expect(start({ port: 0 })).rejects.toThrow(/running already/);
    const port = Number(running.channels[0]!.address.split(':')[1]);

    // A file written into the watched folder is imported and counted, its batch linked.
    writeFileSync(join(inside, 'orders.hl7'), message('CTL-FILE'));
    let status = await t.api.call('intake.status', {});
    for (let i = 0; i < 200 && status.channels[1]!.received === 0; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      status = await t.api.call('intake.status', {});
    }
    expect(status.channels[1]).toMatchObject({ kind: 'folder', address: inside, received: 1 });
    expect(status.channels[1]!.batches).toHaveLength(1);
    await t.api.call('intake.stop', {});

    // The port another program holds: the start fails with a sentence and nothing keeps running.
    const holder = await t.api.call('intake.start', { environmentId: LOCAL_SANDBOX_ID, onArrival: 'hold', port: 0 });
    const held = Number(holder.channels[0]!.address.split(':')[1]);
    const second = await openTestCore('app-intake-second');
    try {
      await expect(
        second.api.call('intake.start', { environmentId: LOCAL_SANDBOX_ID, onArrival: 'hold', port: held }),
      ).rejects.toThrow(/in use/);
      expect((await second.api.call('intake.status', {})).running).toBe(false);
    } finally {
      await second.close();
    }
    expect(port).toBeGreaterThan(0);
  });
});
