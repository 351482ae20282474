import { describe, expect, it } from 'vitest';
import { ContractError } from '../../../shared/errors.js';
import type { CallResult, ContractTransport } from '../../../shared/transport-protocol.js';
import { DEFAULT_SENDING_PACE } from '../../../shared/environment.js';
import { presetEnvironments } from '../../../main/core/environments/presets.js';
import { apiOverTransport } from './api-over-transport.js';

/** A transport that answers every call with one fixed result and lets the test push events. */
function transportAnswering(result: CallResult) {
  const listeners = new Map<string, (payload: unknown) => void>();
  const calls: Array<[string, unknown]> = [];
  const transport: ContractTransport = {
    call: (name, input) => {
      calls.push([name, input]);
      return Promise.resolve(result);
    },
    on: (event, listener) => {
      listeners.set(event, listener);
      return () => listeners.delete(event);
    },
  };
  return { transport, calls, push: (event: string, payload: unknown) => listeners.get(event)?.(payload) };
}

describe('apiOverTransport', () => {
  it('passes the call through and returns a value that fits the contract', async () => {
    const info = { name: 'Rx Batch', version: '1.2.3', transport: 'electron' as const, dataDir: '/home/a/rx-batch' };
    const { transport, calls } = transportAnswering({ ok: true, value: info });
    await expect(apiOverTransport(transport).call('app.info', {})).resolves.toEqual(info);
    expect(calls).toEqual([['app.info', {}]]);
  });

  it('throws a contract error with its code, so the screen can say what went wrong', async () => {
    const { transport } = transportAnswering({ ok: false, error: { code: 'disconnected', message: 'gone' } });
    const failure = apiOverTransport(transport).call('app.info', {});
    await expect(failure).rejects.toBeInstanceOf(ContractError);
    await expect(failure).rejects.toMatchObject({ code: 'disconnected', message: 'gone' });
  });

  it('refuses an answer outside the contract instead of rendering it', async () => {
    const { transport } = transportAnswering({ ok: true, value: { name: 'Rx Batch' } });
    await expect(apiOverTransport(transport).call('app.info', {})).rejects.toMatchObject({ code: 'internal' });
  });

  it('delivers event payloads that fit the contract and drops those that do not', () => {
    const { transport, push } = transportAnswering({ ok: true, value: null });
    const received: unknown[] = [];
    const off = apiOverTransport(transport).on('environments.changed', (payload) => received.push(payload));
    const valid = presetEnvironments().map((environment) => ({
      ...environment,
      ...DEFAULT_SENDING_PACE,
      running: false,
    }));
    push('environments.changed', [{ id: 'x' }]);
    push('environments.changed', valid);
    off();
    push('environments.changed', valid);
    expect(received).toEqual([valid]);
  });
});
