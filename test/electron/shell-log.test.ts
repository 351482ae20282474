import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createShellLogger, LOG_FILE, rotatingFileSink } from '../../main/electron/shell-log.js';

let root: string;
let dir: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'rxbatch-log-'));
  dir = join(root, 'logs');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function lines(file: string): string[] {
  return readFileSync(join(dir, file), 'utf8').split('\n').filter(Boolean);
}

describe('the shell log', () => {
  it('writes JSON lines to a private file in its own private directory', () => {
    const logger = createShellLogger(dir);
    logger.info('starting', { version: '1.2.3' });
    const [line] = lines(LOG_FILE);
    expect(JSON.parse(line ?? '')).toMatchObject({
      level: 'info',
      scope: 'rx-batch',
      message: 'starting',
      version: '1.2.3',
    });
    if (process.platform !== 'win32') {
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, LOG_FILE)).mode & 0o777).toBe(0o600);
    }
  });

  it('rotates by size, keeping the newest lines and at most N old files', () => {
    const sink = rotatingFileSink(dir, { maxBytes: 200, maxFiles: 2 });
    for (let i = 0; i < 40; i += 1) sink(JSON.stringify({ n: i, pad: 'x'.repeat(20) }));
    expect(readdirSync(dir).sort()).toEqual([LOG_FILE, `${LOG_FILE}.1`, `${LOG_FILE}.2`]);
    for (const file of readdirSync(dir)) expect(statSync(join(dir, file)).size).toBeLessThanOrEqual(200);
    const kept = [...lines(`${LOG_FILE}.2`), ...lines(`${LOG_FILE}.1`), ...lines(LOG_FILE)].map(
      (line) => (JSON.parse(line) as { n: number }).n,
    );
    // Whole lines only, oldest to newest, ending with the last one written.
    expect(kept).toEqual(kept.map((_, index) => 40 - kept.length + index));
  });

  it('continues the current file across restarts, rotating by its real size', () => {
    rotatingFileSink(dir, { maxBytes: 100, maxFiles: 1 })('a'.repeat(80));
    rotatingFileSink(dir, { maxBytes: 100, maxFiles: 1 })('b'.repeat(80));
    expect(lines(`${LOG_FILE}.1`)).toEqual(['a'.repeat(80)]);
    expect(lines(LOG_FILE)).toEqual(['b'.repeat(80)]);
  });

  it('masks fields named after secrets or patient data', () => {
    const logger = createShellLogger(dir);
    logger.warn('refused', { accessToken: 'eyJ.secret', patientSurname: 'Smith', count: 3 });
    const text = readFileSync(join(dir, LOG_FILE), 'utf8');
    expect(text).not.toContain('eyJ.secret');
    expect(text).not.toContain('Smith');
    expect(text).toContain('"count":3');
  });

  it('never throws when the directory disappears', () => {
    const sink = rotatingFileSink(dir);
    rmSync(dir, { recursive: true, force: true });
    expect(() => sink('line')).not.toThrow();
  });
});
