import { describe, expect, it, vi } from 'vitest';
import type { CallHandlers } from '../../shared/contract.js';
import { ContractError } from '../../shared/errors.js';
import { handlersWith } from '../../test/support/call-handlers.js';
import { dispatchCall } from './dispatch.js';

function handlers(overrides: Partial<CallHandlers> = {}): CallHandlers {
  return handlersWith({
    'app.info': () => Promise.resolve({ name: 'Rx Batch', version: '0.0.0', transport: 'direct', dataDir: '/tmp/rx' }),
    'environments.list': () => Promise.resolve([]),
    'connection.check': () => Promise.reject(new Error('not used')),
    'couriers.priceList': () => Promise.resolve({ ok: true, value: [] }),
    'products.search': ({ searchTerm }) =>
      Promise.resolve({ ok: true, value: [{ productId: 1, dmdCode: '123456781000001114', name: searchTerm }] }),
    ...overrides,
  });
}

describe('dispatchCall: the only door into the core', () => {
  it('runs a valid call and returns the output parsed by the contract', async () => {
    const result = await dispatchCall(handlers(), 'products.search', { environmentId: 'x', searchTerm: ' para ' });
    expect(result).toEqual({
      ok: true,
      value: { ok: true, value: [{ productId: 1, dmdCode: '123456781000001114', name: 'para' }] },
    });
  });

  it.each([
    ['a name that is not a call', 'orders.dropAll', {}],
    ['a prototype key', 'constructor', {}],
    ['a non-string name', 42, {}],
  ])('refuses %s as unknown-call', async (_label, name, payload) => {
    const result = await dispatchCall(handlers(), name, payload);
    expect(result).toMatchObject({ ok: false, error: { code: 'unknown-call' } });
  });

  it.each([
    ['a wrong type', { environmentId: 7, searchTerm: 'x' }, 'environmentId'],
    ['a missing field', { environmentId: 'x' }, 'searchTerm'],
    ['an unexpected extra field', { environmentId: 'x', searchTerm: 'x', sql: 'drop' }, '(input)'],
    ['an oversized value', { environmentId: 'x', searchTerm: 'x'.repeat(10_000) }, 'searchTerm'],
    ['a non-object payload', 'products', '(input)'],
  ])('refuses %s with the field named, and never calls the core', async (_label, payload, path) => {
    const search = vi.fn();
    const result = await dispatchCall(handlers({ 'products.search': search }), 'products.search', payload);
    expect(search).not.toHaveBeenCalled();
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('invalid-input');
      expect(result.error.issues?.map((issue) => issue.path)).toContain(path);
    }
  });

  it('stops an answer outside the contract from reaching the renderer', async () => {
    const leaky = handlers({
      'app.info': () => Promise.resolve({ name: 'Rx Batch', version: '1', transport: 'carrier-pigeon' } as never),
    });
    expect(await dispatchCall(leaky, 'app.info', {})).toMatchObject({ ok: false, error: { code: 'internal' } });
  });

  it('passes contract errors through and hides the details of internal ones', async () => {
    const failing = handlers({
      'couriers.priceList': () => Promise.reject(new ContractError({ code: 'invalid-input', message: 'no such env' })),
      'environments.list': () => Promise.reject(new Error('SQLITE_CORRUPT at /home/alex/patients.db')),
    });
    expect(await dispatchCall(failing, 'couriers.priceList', { environmentId: 'x' })).toEqual({
      ok: false,
      error: { code: 'invalid-input', message: 'no such env' },
    });
    const internal = await dispatchCall(failing, 'environments.list', {});
    expect(internal).toEqual({
      ok: false,
      error: { code: 'internal', message: 'environments.list failed inside the app' },
    });
  });
});
