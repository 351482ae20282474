import { describe, expect, it } from 'vitest';
import type { IntakeStatus } from '../../../../shared/intake-contract.js';
import { describeRunRules, describeSeries, sameRules, serveCommand } from './intake-text.js';

describe('intake words', () => {
  it('says what the chart shows', () => {
    const series = Array.from({ length: 60 }, () => 0);
    expect(describeSeries(series, 'message')).toBe('No messages in the last hour.');
    series[10] = 4;
    series[59] = 1;
    expect(describeSeries(series, 'message')).toBe(
      '5 messages in the last hour; at most 4 in one minute; 1 in the current minute.',
    );
    expect(describeSeries([...Array.from({ length: 59 }, () => 0), 1], 'file')).toBe(
      '1 file in the last hour; at most 1 in one minute; 1 in the current minute.',
    );
  });

  it('gives the serve command for what runs, or for the port about to be used (serve reads the saved rules)', () => {
    expect(serveCommand('local', undefined, '2600')).toBe('rx-batch serve --env local --mllp 127.0.0.1:2600');
    const running = {
      running: true,
      onArrival: 'send',
      channels: [
        { kind: 'mllp', address: '127.0.0.1:2575' },
        { kind: 'folder', address: '/data/in box' },
      ],
    } as unknown as IntakeStatus;
    expect(serveCommand('local', running, '9')).toBe(
      'rx-batch serve --env local --mllp 127.0.0.1:2575 --watch "/data/in box"',
    );
    const foldersOnly = { ...running, onArrival: 'hold', channels: [running.channels[1]] } as IntakeStatus;
    expect(serveCommand('local', foldersOnly, '9')).toBe('rx-batch serve --env local --watch "/data/in box"');
  });

  it('says what a run does with what arrives, and tells changed rules apart', () => {
    expect(describeRunRules({ onArrival: 'hold', senders: [] })).toBe('orders are held for review in Preview.');
    expect(describeRunRules({ onArrival: 'send', senders: [] })).toBe('valid orders are sent as they arrive.');
    const rules = {
      onArrival: 'hold' as const,
      senders: [
        { sender: 'EPR-7^CLINIC-H', onArrival: 'send' as const },
        { sender: 'LAB', onArrival: 'hold' as const },
      ],
    };
    expect(describeRunRules(rules)).toBe(
      'orders are held for review in Preview; senders with a rule of their own: EPR-7^CLINIC-H (sent as they arrive), LAB (held).',
    );
    expect(sameRules(rules, { ...rules, senders: [...rules.senders] })).toBe(true);
    expect(sameRules(rules, { ...rules, senders: [...rules.senders].reverse() })).toBe(false);
    expect(
      sameRules(rules, { ...rules, senders: [{ sender: 'EPR-7^CLINIC-H', onArrival: 'hold' }, rules.senders[1]!] }),
    ).toBe(false);
    expect(sameRules(rules, { ...rules, onArrival: 'send' })).toBe(false);
  });
});
