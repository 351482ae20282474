import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../main/core/platform/logger.js';
import { ServiceHealth } from '../../main/core/outbox/service-health.js';
import { DEFAULT_TUNING } from '../../main/core/outbox/tuning.js';

function health(): ServiceHealth {
  const tuning = { ...DEFAULT_TUNING, concurrency: 1, ratePerSecond: 10, breakerThreshold: 2 };
  return new ServiceHealth({ environmentId: 'env-1', tuning, random: () => 0, logger: silentLogger });
}

const certificate = { service: 'down', message: 'certificate not trusted', settings: true, unsent: true } as const;
const unavailable = { service: 'down', message: '503 Service Unavailable' } as const;

describe('service health: the outage it reports', () => {
  it('says what the outage takes while it lasts, follows a failure the other way, and says nothing once over', () => {
    const h = health();
    h.takeIn({ id: 1, kind: 'create' }, certificate, 0);
    expect([h.outageMessage, h.outageNeedsSettings]).toEqual([null, false]);
    h.takeIn({ id: 2, kind: 'create' }, certificate, 1);
    expect([h.outageMessage, h.outageNeedsSettings]).toEqual(['certificate not trusted', true]);
    const opened = h.takeEvents();
    expect(opened).toHaveLength(1);
    expect(opened[0]?.attention).toMatchObject({ kind: 'service-unavailable', needsSettings: true });

    // The certificate put right, the service still down: the message and the settings flag change together.
    h.takeIn({ id: 3, kind: 'lookup' }, unavailable, 2);
    expect([h.outageMessage, h.outageNeedsSettings]).toEqual(['503 Service Unavailable', false]);
    // Another failure the same way keeps what the outage said; neither is news to audit.
    h.takeIn({ id: 4, kind: 'lookup' }, { ...unavailable, message: 'timed out' }, 3);
    expect(h.outageMessage).toBe('503 Service Unavailable');
    h.takeIn({ id: 5, kind: 'lookup' }, certificate, 4);
    expect([h.outageMessage, h.outageNeedsSettings]).toEqual(['certificate not trusted', true]);
    expect(h.hasEvents).toBe(false);

    h.takeIn({ id: 6, kind: 'lookup' }, { service: 'up' }, 5);
    expect([h.outageMessage, h.outageNeedsSettings]).toEqual([null, false]);
    expect(h.takeEvents().map((e) => e.action)).toEqual(['outbox.service-restored']);
    // One failure after it, below the threshold, is no outage: nothing from the last one lingers.
    h.takeIn({ id: 7, kind: 'lookup' }, certificate, 6);
    expect([h.outageMessage, h.outageNeedsSettings]).toEqual([null, false]);
  });
});

describe('service health: 403s', () => {
  const page = {
    service: 'forbidden',
    message: 'the service answered with a web page instead of its own error',
  } as const;
  const envelope = {
    service: 'forbidden',
    message: 'Forbidden: the patient is locked out',
    serviceWritten: true,
  } as const;
  const up = { service: 'up' } as const;

  it("a firewall's page refuses the environment at once; a request that gets through ends it", () => {
    const h = health();
    h.takeIn({ id: 1, kind: 'create' }, page, 0);
    expect(h.breaker.state(0)).toBe('open');
    expect(h.outageAccessRefused).toBe(true);
    expect(h.outageMessage).toMatch(/^the service \(or something in front of it\) refuses every request with 403/);
    expect(h.forbiddenByEnvironment(1)).toBe(true);
    expect(h.takeEvents()).toEqual([
      expect.objectContaining({
        action: 'outbox.access-refused',
        attention: expect.objectContaining({ kind: 'service-unavailable', accessRefused: true }) as unknown,
      }),
    ]);
    // A request lost on its way, answered after, does not turn the refusal into "not answering".
    h.takeIn({ id: 2, kind: 'create' }, unavailable, 1);
    expect(h.outageAccessRefused).toBe(true);
    h.takeIn({ id: 3, kind: 'create' }, up, 2);
    expect([h.breaker.state(2), h.outageAccessRefused]).toEqual(['closed', false]);
  });

  it("the service's own 403 holds its order, until a streak of the threshold's different orders says otherwise", () => {
    const h = health();
    h.takeIn({ id: 1, kind: 'create' }, envelope, 0);
    expect([h.breaker.state(0), h.forbiddenByEnvironment(1)]).toEqual(['closed', false]);
    h.takeIn({ id: 2, kind: 'create' }, envelope, 1);
    expect(h.breaker.state(1)).toBe('open');
    expect([h.forbiddenByEnvironment(1), h.forbiddenByEnvironment(2)]).toEqual([true, true]);
    expect(h.takeRequeue()).toEqual([1]);
    // A success in between ends the streak: one refusal is the order's again.
    const other = health();
    other.takeIn({ id: 1, kind: 'create' }, envelope, 0);
    other.takeIn({ id: 9, kind: 'create' }, up, 1);
    other.takeIn({ id: 2, kind: 'create' }, envelope, 2);
    expect(other.breaker.state(2)).toBe('closed');
    expect(other.takeRequeue()).toEqual([]);
  });

  it('after a refusal ends, an order refused again on its own is its own; a second order refused with it is not', () => {
    const h = health();
    h.takeIn({ id: 1, kind: 'create' }, page, 0);
    h.takeIn({ id: 2, kind: 'create' }, page, 1);
    h.takeIn({ id: 3, kind: 'create' }, up, 2);
    // A firewall rule on its body: refused again while others get through.
    h.takeIn({ id: 1, kind: 'create' }, page, 3);
    expect([h.breaker.state(3), h.forbiddenByEnvironment(1)]).toEqual(['closed', false]);
    // The firewall back for everyone: the next one refused with it refuses the environment again.
    h.takeIn({ id: 2, kind: 'create' }, page, 4);
    expect([h.breaker.state(4), h.forbiddenByEnvironment(2)]).toEqual(['open', true]);
  });
});
