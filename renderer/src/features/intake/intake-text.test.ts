import { describe, expect, it } from 'vitest';
import type { IntakeStatus } from '../../../../shared/intake-contract.js';
import { describeSeries, serveCommand } from './intake-text.js';

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

  it('gives the serve command for what runs, or for the port about to be used', () => {
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
      'rx-batch serve --env local --mllp 127.0.0.1:2575 --watch "/data/in box" --on-arrival send',
    );
    const foldersOnly = { ...running, onArrival: 'hold', channels: [running.channels[1]] } as IntakeStatus;
    expect(serveCommand('local', foldersOnly, '9')).toBe('rx-batch serve --env local --watch "/data/in box"');
  });
});
