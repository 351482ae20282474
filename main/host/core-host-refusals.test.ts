import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { AUDIT_CHAIN_SECRET } from '../core/audit/chain-key.js';
import { childChannel } from './fork-spawner.js';
import { coreHostEntry, entryExecArgv } from './host-entry.js';
import type { HostStartOptions } from './host-protocol.js';

/**
 * The host's side of the protocol against a shell that sends anything at all: the real host entry in a child
 * process, spoken to message by message (no client in between). What does not parse is refused: a call with a
 * usable id is answered `invalid-input`, anything else is only logged, and a reply outside the protocol is never
 * used (here: a made-up audit key, so the core refuses to start rather than run on it).
 */

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function startOptions(secrets: HostStartOptions['secrets']): HostStartOptions {
  const dir = mkdtempSync(join(tmpdir(), 'rxbatch-host-refusals-'));
  dirs.push(dir);
  return {
    dataDir: join(dir, 'data'),
    appVersion: '9.9.9',
    transport: 'direct',
    secrets,
    importPaths: { kind: 'none' },
    desktop: false,
    localSandbox: { start: false },
    startOutbox: false,
  };
}

/** The host entry, forked; every message it sends is kept. */
function rawHost() {
  const entry = coreHostEntry(import.meta.url);
  const child = fork(entry, [], { execArgv: entryExecArgv(entry), stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
  const channel = childChannel(child);
  const received: Array<Record<string, unknown>> = [];
  channel.onMessage((message) => received.push(message as Record<string, unknown>));
  const exited = new Promise<number | null>((resolve) => channel.onExit((code) => resolve(code)));
  const waitFor = async (predicate: (message: Record<string, unknown>) => boolean) => {
    await vi.waitFor(() => expect(received.find(predicate)).toBeDefined(), { timeout: 20_000, interval: 20 });
    return received.find(predicate)!;
  };
  return { child, channel, received, exited, waitFor, send: (message: unknown) => child.send(message as never) };
}

const refusedLog = (message: Record<string, unknown>) =>
  message.type === 'log' && message.message === 'core host refused a message from the shell';

describe('the core host refuses what does not parse', () => {
  it('before and after start: junk is logged and ignored, a broken call is answered invalid-input', async () => {
    const host = rawHost();
    await host.waitFor((message) => message.type === 'hello');
    for (const junk of [
      'start',
      42,
      [{ type: 'stop' }],
      { type: 'start', options: { dataDir: 42 } },
      { type: 'start', options: { ...startOptions('memory'), secrets: 'in-the-clear' } },
      { type: 'stop', now: true },
      { type: 'reply', id: 1, ok: 'yes' },
    ]) {
      host.send(junk);
    }
    await vi.waitFor(() => expect(host.received.filter(refusedLog)).toHaveLength(7));
    host.send({ type: 'call', id: 3, call: '', input: {} });
    expect(await host.waitFor((message) => message.type === 'result' && message.id === 3)).toMatchObject({
      ok: false,
      error: { code: 'invalid-input' },
    });
    // None of it started or stopped anything: the host still waits for a start.
    expect(host.received.some((message) => message.type === 'ready' || message.type === 'stopped')).toBe(false);
    expect(host.child.exitCode).toBeNull();

    host.send({ type: 'start', options: startOptions('memory') });
    await host.waitFor((message) => message.type === 'ready');
    host.send({ type: 'call', id: 7, call: 'app.info', input: {}, sql: 'drop table orders' });
    host.send({
      type: 'call',
      id: 8,
      call: 'products.search',
      input: { environmentId: 'x', searchTerm: 'a'.repeat(500) },
    });
    host.send({ type: 'reply', id: 12345, ok: true, value: 'a reply to nothing' });
    host.send({ type: 'call', id: 9, call: 'app.info', input: {} });
    expect(await host.waitFor((message) => message.id === 7)).toMatchObject({
      ok: false,
      error: { code: 'invalid-input' },
    });
    expect(await host.waitFor((message) => message.id === 8)).toMatchObject({
      ok: false,
      error: { code: 'invalid-input' },
    });
    expect(await host.waitFor((message) => message.id === 9)).toMatchObject({
      ok: true,
      value: { name: 'Rx Batch', transport: 'direct' },
    });
    expect(host.received).toContainEqual(
      expect.objectContaining({ type: 'log', message: 'core host refused a reply to no request' }),
    );

    host.send({ type: 'stop' });
    await host.waitFor((message) => message.type === 'stopped');
    expect(await host.exited).toBe(0);
  }, 60_000);

  it("never uses a reply outside the protocol: a shell answering the audit key's request with a number stops the start", async () => {
    const host = rawHost();
    await host.waitFor((message) => message.type === 'hello');
    host.send({ type: 'start', options: startOptions('shell') });
    const request = await host.waitFor((message) => message.type === 'request');
    expect(request).toMatchObject({ service: 'secrets.get', args: { key: AUDIT_CHAIN_SECRET } });
    host.send({ type: 'reply', id: request.id, ok: true, value: 42 });
    const failed = await host.waitFor((message) => message.type === 'failed');
    expect(failed.message).toMatch(/secrets\.get: the answer is outside the protocol/);
    expect(await host.exited).toBe(1);
  }, 60_000);

  it('stops cleanly on SIGTERM, closing the core first', async () => {
    const host = rawHost();
    await host.waitFor((message) => message.type === 'hello');
    host.send({ type: 'start', options: startOptions('memory') });
    await host.waitFor((message) => message.type === 'ready');
    host.child.kill('SIGTERM');
    await host.waitFor((message) => message.type === 'stopped');
    expect(await host.exited).toBe(0);
  }, 60_000);
});
