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
