import { describe, expect, it, vi } from 'vitest';
import type { EventName } from '../../shared/contract.js';
import { CONFIRM_LIMITS } from '../core/confirm-question.js';
import type { ConfirmQuestion, DesktopIntegration } from '../core/desktop-handlers.js';
import { MemorySecretStore } from '../core/platform/secret-store.js';
import type { Logger } from '../core/platform/logger.js';
import { CoreClient, type HostChannel } from './core-client.js';
import type { HostStartOptions, ShellMessage } from './host-protocol.js';

/**
 * The shell's side of the protocol against a scripted host (no process): what a broken or hostile host sends is
 * refused, a host that dies ends its calls `disconnected` and is restarted, and one that keeps dying is given up.
 */

const START: HostStartOptions = {
  dataDir: '/tmp/rx-never-opened',
  appVersion: '9.9.9',
  transport: 'browser',
  secrets: 'shell',
  importPaths: { kind: 'none' },
  desktop: false,
  localSandbox: { start: false },
};

const APP_INFO = { name: 'Rx Batch', version: '9.9.9', transport: 'browser', dataDir: '/tmp/rx' };

class ScriptedHost implements HostChannel {
  static nextPid = 50_000;
  readonly pid = ScriptedHost.nextPid++;
  readonly sent: ShellMessage[] = [];
  #onMessage: (message: unknown) => void = () => {};
  readonly #onExit: Array<(code: number | null, signal: string | null) => void> = [];
  exited = false;
  killed = false;

  send(message: ShellMessage): boolean {
    if (this.exited) return false;
    this.sent.push(JSON.parse(JSON.stringify(message)) as ShellMessage);
    return true;
  }
  onMessage(listener: (message: unknown) => void): void {
    this.#onMessage = listener;
  }
  onExit(listener: (code: number | null, signal: string | null) => void): void {
    this.#onExit.push(listener);
  }
  kill(): void {
    this.killed = true;
    this.exit(null, 'SIGKILL');
  }

  /** What the host would send. */
  say(message: unknown): void {
    this.#onMessage(message);
  }
  exit(code: number | null, signal: string | null = null): void {
    if (this.exited) return;
    this.exited = true;
    for (const listener of this.#onExit) listener(code, signal);
  }
  /** The hello / start / ready handshake. */
  boot(): void {
    this.say({ type: 'hello' });
    expect(this.sent.at(-1)).toEqual({ type: 'start', options: START });
    this.say({ type: 'ready' });
  }
  /** The calls it was sent, by name. */
  callsNamed(name: string): Array<Extract<ShellMessage, { type: 'call' }>> {
    return this.sent.filter(
      (message): message is Extract<ShellMessage, { type: 'call' }> => message.type === 'call' && message.call === name,
    );
  }
  replies(): Array<Extract<ShellMessage, { type: 'reply' }>> {
    return this.sent.filter((message): message is Extract<ShellMessage, { type: 'reply' }> => message.type === 'reply');
  }
}

function recordingLogger() {
  const lines: string[] = [];
  const logger: Logger = {
    info: (message) => lines.push(message),
    warn: (message) => lines.push(message),
    error: (message) => lines.push(message),
  };
  return { logger, lines };
}

async function startedClient(
  options: { secrets?: MemorySecretStore; desktop?: DesktopIntegration; restart?: object } = {},
) {
  const hosts: ScriptedHost[] = [];
  const { logger, lines } = recordingLogger();
  const client = new CoreClient({
    spawn: () => {
      const host = new ScriptedHost();
      hosts.push(host);
      return host;
    },
    start: START,
    services: {
      ...(options.secrets ? { secrets: options.secrets } : {}),
      ...(options.desktop ? { desktop: options.desktop } : {}),
    },
    logger,
    restart: { baseDelayMs: 1, maxDelayMs: 5, callWaitMs: 2_000, ...options.restart },
  });
  const events: Array<{ event: EventName; payload: unknown }> = [];
  client.subscribeAll((event, payload) => events.push({ event, payload }));
  const started = client.start();
  hosts[0]!.boot();
  await started;
  return { client, hosts, lines, events, host: () => hosts.at(-1)! };
}

describe('the core client refuses what a broken or hostile host sends', () => {
  it('an answer outside the contract never reaches the UI; a result for no call or with a made-up error code is refused', async () => {
    const { client, host, lines } = await startedClient();
    const answer = client.call('app.info', {});
    const [call] = host().callsNamed('app.info');
    host().say({ type: 'result', id: 999, ok: true, value: APP_INFO });
    host().say({ type: 'result', id: call!.id, ok: false, error: { code: 'self-destruct', message: 'x' } });
    host().say({ type: 'result', id: call!.id, ok: true, value: { ...APP_INFO, transport: 'carrier-pigeon' } });
    expect(await answer).toEqual({
      ok: false,
      error: { code: 'internal', message: 'app.info produced an answer outside the contract' },
    });
    expect(lines).toContain('refused a result for no call from the core host');
    expect(lines).toContain('refused a message from the core host');

    const second = client.call('app.info', {});
    const [, again] = host().callsNamed('app.info');
    host().say({ type: 'result', id: again!.id, ok: true, value: APP_INFO });
    expect(await second).toEqual({ ok: true, value: APP_INFO });
  });

  it.each([
    ['a string', 'ready'],
    ['null', null],
    ['an array', [{ type: 'ready' }]],
    ['an unknown type', { type: 'exec', command: 'rm -rf ~' }],
    ['an extra field', { type: 'ready', also: 'this' }],
    ['a log line with an object for a field', { type: 'log', level: 'info', message: 'x', fields: { a: { b: 1 } } }],
    ['a prototype key', JSON.parse('{"type":"event","event":"attention","payload":{},"__proto__":{"x":1}}')],
  ])('ignores %s', async (_label, message) => {
    const { client, host, lines, events } = await startedClient();
    const before = events.length;
    host().say(message);
    expect(lines).toContain('refused a message from the core host');
    expect(events.length).toBe(before);
    expect(client.state).toBe('running');
  });

  it("forwards the contract's events only: unknown names, bad payloads and a made-up app.core are dropped", async () => {
    const { host, events } = await startedClient();
    host().say({ type: 'event', event: 'app.core', payload: { state: 'failed', message: 'send your password' } });
    host().say({ type: 'event', event: 'no.such.event', payload: {} });
    host().say({ type: 'event', event: 'environments.changed', payload: 'all of them' });
    host().say({ type: 'event', event: 'toString', payload: {} });
    expect(events).toEqual([]);
    host().say({ type: 'event', event: 'import.requested', payload: { files: 2 } });
    expect(events).toEqual([{ event: 'import.requested', payload: { files: 2 } }]);
  });

  it("serves well-formed requests from the shell's services only; broken ones are never acted on", async () => {
    const secrets = new MemorySecretStore();
    await secrets.set('kept', 'value');
    const spy = vi.spyOn(secrets, 'get');
    const { host, lines } = await startedClient({ secrets });
    host().say({ type: 'request', id: 1, service: 'secrets.get', args: { key: 42 } });
    host().say({ type: 'request', id: 2, service: 'secrets.get', args: { key: 'kept', also: 'x' } });
    host().say({ type: 'request', id: 3, service: 'shell.exec', args: { command: 'id' } });
    host().say({ type: 'request', id: -4, service: 'secrets.get', args: { key: 'kept' } });
    expect(spy).not.toHaveBeenCalled();
    expect(lines.filter((line) => line === 'refused a message from the core host')).toHaveLength(4);

    host().say({ type: 'request', id: 5, service: 'secrets.get', args: { key: 'kept' } });
    host().say({ type: 'request', id: 6, service: 'desktop.chooseFiles', args: { purpose: 'import' } });
    await vi.waitFor(() => expect(host().replies()).toHaveLength(2));
    expect(
      host()
        .replies()
        .sort((a, b) => a.id - b.id),
    ).toEqual([
      { type: 'reply', id: 5, ok: true, value: 'value' },
      { type: 'reply', id: 6, ok: false, message: 'this shell does not offer desktop.chooseFiles' },
    ]);
  });
});

/** A desktop whose confirmations say yes and are kept; nothing else of it is used here. */
function confirmingDesktop() {
  const questions: ConfirmQuestion[] = [];
  const desktop: DesktopIntegration = {
    chooseFiles: () => Promise.resolve({ paths: [], skipped: [] }),
    takeImportRequests: () => ({ paths: [], skipped: [] }),
    openDataFolder: () => Promise.resolve({}),
    chooseSavePath: () => Promise.resolve(null),
    confirm: (question) => {
      questions.push(question);
      return Promise.resolve(true);
    },
  };
  return { desktop, questions };
}

describe("the native confirmation the host asks of the shell's desktop", () => {
  const question: ConfirmQuestion = {
    kind: 'removal',
    title: 'Remove this environment?',
    message: 'Remove "Staging"?',
    detail: 'Removing Staging signs it out. It has no orders.',
    confirmLabel: 'Remove environment',
  };

  it('is shown only as a question of a known kind within the limits; anything else never reaches the dialog', async () => {
    const { desktop, questions } = confirmingDesktop();
    const { host, lines } = await startedClient({ desktop });
    const broken: unknown[] = [
      { ...question, kind: 'format-disk' },
      { ...question, message: 'x'.repeat(CONFIRM_LIMITS.message + 1) },
      { ...question, detail: 'x'.repeat(CONFIRM_LIMITS.detail + 1) },
      { ...question, title: 'x'.repeat(CONFIRM_LIMITS.title + 1) },
      { ...question, confirmLabel: '' },
      { ...question, buttons: ['Remove', 'Remove'] },
      { kind: 'removal', message: 'Remove "Staging"?' },
    ];
    broken.forEach((args, index) =>
      host().say({ type: 'request', id: index + 1, service: 'desktop.confirm', args: { question: args } }),
    );
    // The four requests it replaced are gone from the protocol.
    host().say({
      type: 'request',
      id: 20,
      service: 'desktop.confirmRemoval',
      args: { removal: { name: 'Staging', message: 'x' } },
    });
    expect(lines.filter((line) => line === 'refused a message from the core host')).toHaveLength(broken.length + 1);
    expect(questions).toEqual([]);

    host().say({ type: 'request', id: 21, service: 'desktop.confirm', args: { question } });
    await vi.waitFor(() => expect(host().replies()).toEqual([{ type: 'reply', id: 21, ok: true, value: true }]));
    expect(questions).toEqual([question]);
  });
});

describe('the core client when the host dies', () => {
  it('ends calls in flight as disconnected, says so at once, restarts the host and carries on', async () => {
    const { client, hosts, host, events } = await startedClient();
    const inFlight = client.call('environments.list', {});
    const first = host();
    first.exit(null, 'SIGKILL');
    expect(await inFlight).toMatchObject({ ok: false, error: { code: 'disconnected' } });
    expect(events.at(-1)).toMatchObject({ event: 'app.core', payload: { state: 'restarting' } });
    expect(client.state).toBe('restarting');

    // A call made meanwhile waits for the new host rather than failing.
    const waiting = client.call('environments.list', {});
    await vi.waitFor(() => expect(hosts).toHaveLength(2));
    host().boot();
    await vi.waitFor(() => expect(host().callsNamed('environments.list')).toHaveLength(1));
    host().say({ type: 'result', id: host().callsNamed('environments.list')[0]!.id, ok: true, value: [] });
    expect(await waiting).toEqual({ ok: true, value: [] });
    expect(events.at(-1)).toEqual({ event: 'app.core', payload: { state: 'running' } });
    expect(client.restarts).toBe(1);
    expect(first.callsNamed('environments.list')).toHaveLength(1);
  });

  it('gives up after the policy’s quick failures in a row, with a sentence saying what to do', async () => {
    const { client, hosts, host, events } = await startedClient({ restart: { maxQuickFailures: 3 } });
    host().exit(1);
    await vi.waitFor(() => expect(hosts).toHaveLength(2));
    host().exit(1);
    await vi.waitFor(() => expect(hosts).toHaveLength(3));
    host().say({ type: 'hello' });
    host().say({ type: 'failed', message: 'Rx Batch data in /x is already open by PID 4242' });
    host().exit(1);
    await vi.waitFor(() => expect(client.state).toBe('failed'));
    expect(hosts).toHaveLength(3);
    const failed = events.at(-1);
    expect(failed).toMatchObject({ event: 'app.core', payload: { state: 'failed' } });
    expect((failed?.payload as { message: string }).message).toMatch(/stopped 3 times in a row.*Quit and start/);
    const refused = await client.call('app.info', {});
    expect(refused).toMatchObject({ ok: false, error: { code: 'disconnected' } });
    expect(refused.ok ? '' : refused.error.message).toMatch(/stopped restarting it/);
  });

  it('a spawner that throws while restarting counts as a quick failure, not a crash of the shell', async () => {
    const hosts: ScriptedHost[] = [];
    let refuse = false;
    const client = new CoreClient({
      spawn: () => {
        if (refuse) throw new Error('spawn EAGAIN');
        const host = new ScriptedHost();
        hosts.push(host);
        return host;
      },
      start: START,
      restart: { baseDelayMs: 1, maxDelayMs: 2, maxQuickFailures: 3 },
    });
    const started = client.start();
    hosts[0]!.boot();
    await started;
    refuse = true;
    hosts[0]!.exit(null, 'SIGKILL');
    await vi.waitFor(() => expect(client.state).toBe('failed'));
    expect(hosts).toHaveLength(1);
  });

  it('a first start that fails rejects with the host’s own reason and is not retried', async () => {
    const hosts: ScriptedHost[] = [];
    const client = new CoreClient({
      spawn: () => {
        const host = new ScriptedHost();
        hosts.push(host);
        return host;
      },
      start: START,
    });
    const started = client.start();
    hosts[0]!.say({ type: 'hello' });
    hosts[0]!.say({ type: 'failed', message: 'Rx Batch data in /x is already open by PID 4242' });
    await expect(started).rejects.toThrow('already open by PID 4242');
    hosts[0]!.exit(1);
    expect(hosts).toHaveLength(1);
    expect(client.state).toBe('failed');
  });

  it('stop asks the host to stop, waits for it to exit, and does not restart it', async () => {
    const { client, hosts, host } = await startedClient();
    const stopped = client.stop();
    expect(host().sent.at(-1)).toEqual({ type: 'stop' });
    host().say({ type: 'stopped' });
    host().exit(0);
    await stopped;
    expect(client.state).toBe('stopped');
    expect(hosts).toHaveLength(1);
  });
});
