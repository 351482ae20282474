import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeTemplateCsv } from '../../main/core/importing/template-csv.js';
import { uniqueOrder } from '../../main/core/staging/testing/staging-fixtures.js';
import { finished, runCli, startCli } from '../../main/cli/testing/run-cli-process.js';
import { sendWithLibrary } from '../support/hl7-client.js';
import { writeRde011 } from '../../main/core/importing/rde-writer.js';
import { mllpFrame } from '../../main/core/intake/mllp-framer.js';
import { sandboxEnvPerFile } from './support/serve-env.js';

// Issue #17: `rx-batch serve` prints its intakes exactly when ready and stops cleanly on SIGTERM; `profile
// add-hl7/list/remove` set up a sender without the UI.

const { root, data } = sandboxEnvPerFile('rx-serve-cli-');

describe('rx-batch serve and profile', () => {
  it('saves, lists and removes an HL7 profile for a sender; refuses a bad --set', async () => {
    const add = await runCli([
      'profile',
      'add-hl7',
      'Clinic EPR',
      '--sender',
      'EPR-9^CLINIC-Z',
      '--message-type',
      'RDE^O11',
      '--set',
      'prescription.paymentType=Account',
      '--set',
      'prescription.courierCode=RMT24',
      '--set',
      'prescription.currencyCode=GBP',
      '--data-dir',
      data,
    ]);
    expect(add).toMatchObject({ code: 0, stdout: "Saved HL7 profile 'Clinic EPR' for EPR-9^CLINIC-Z (RDE^O11).\n" });
    const list = await runCli(['profile', 'list', '--data-dir', data]);
    expect(list.stdout).toBe(
      'Clinic EPR\tHL7 from EPR-9^CLINIC-Z (RDE^O11)\tpaymentType=Account, courierCode=RMT24, currencyCode=GBP' +
        '\tunbound (any clinic, any peer)\n',
    );
    const bad = await runCli(['profile', 'add-hl7', 'X', '--sender', 'A^B', '--set', 'nonsense=1', '--data-dir', data]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/no such field/);
    expect((await runCli(['profile', 'remove', 'Clinic EPR', '--data-dir', data])).code).toBe(0);
    expect((await runCli(['profile', 'list', '--data-dir', data])).stdout).toBe('No saved profiles.\n');
    expect((await runCli(['profile', 'remove', 'Clinic EPR', '--data-dir', data])).code).toBe(2);
  }, 60_000);

  it('binds a profile to clinics and peers (--clinic, --peer), lists them, keeps them when saved again, refuses bad ones', async () => {
    const add = (...more: string[]) =>
      runCli(['profile', 'add-hl7', 'Bound EPR', '--sender', 'EPR-5^CLINIC-B', ...more, '--data-dir', data]);
    const saved = await add('--clinic', 'CLINIC-B', '--clinic', 'CLINIC-C', '--peer', '10.20.0.0/16', '--peer', '::1');
    expect(saved).toMatchObject({ code: 0, stdout: "Saved HL7 profile 'Bound EPR' for EPR-5^CLINIC-B (RDE^O11).\n" });
    const line = 'Bound EPR\tHL7 from EPR-5^CLINIC-B (RDE^O11)\tclinics CLINIC-B, CLINIC-C; peers 10.20.0.0/16, ::1\n';
    expect((await runCli(['profile', 'list', '--data-dir', data])).stdout).toBe(line);
    // Saved again without them: the binding is kept (never loosened by omission), and said so.
    const again = await add('--set', 'prescription.courierCode=RMT24');
    expect(again.stdout).toContain('Bound: clinics CLINIC-B, CLINIC-C; peers 10.20.0.0/16, ::1');
    expect((await runCli(['profile', 'list', '--data-dir', data])).stdout).toContain(
      '\tclinics CLINIC-B, CLINIC-C; peers 10.20.0.0/16, ::1\n',
    );
    const badPeer = await add('--peer', '10.20.0.0/33');
    expect(badPeer.code).toBe(2);
    expect(badPeer.stderr).toContain('--peer: "10.20.0.0/33": the prefix length after / is 0 to 32 for an IPv4 block');
    const notAnAddress = await add('--peer', 'clinic.example');
    expect(notAnAddress.stderr).toContain('"clinic.example" is not an IP address or CIDR block');
    expect((await runCli(['profile', 'remove', 'Bound EPR', '--data-dir', data])).code).toBe(0);
    // Each change of the binding is in the log, the removal of the bound profile too; a save keeping it is not.
    const log = await runCli(['log', 'export', '--format', 'jsonl', '--data-dir', data]);
    const changes = log.stdout
      .split('\n')
      .filter((l) => l.includes('"intake.binding.changed"'))
      .map((l) => (JSON.parse(l) as { details: { binding: string; previousBinding: string } }).details);
    const bound = 'EPR-5^CLINIC-B (profile Bound EPR): clinics CLINIC-B, CLINIC-C; peers 10.20.0.0/16, ::1';
    expect(changes.map((d) => [d.binding, d.previousBinding])).toEqual([
      [bound, 'no profile Bound EPR'],
      ['profile Bound EPR removed', bound],
    ]);
  }, 60_000);

  it('warns once per unbound profile when the listener admits other computers, not on loopback', async () => {
    const profile = (name: string, sender: string, ...more: string[]) =>
      runCli(['profile', 'add-hl7', name, '--sender', sender, ...more, '--data-dir', data]);
    expect((await profile('Open EPR', 'EPR-6^CLINIC-O')).code).toBe(0);
    expect((await profile('Half EPR', 'EPR-8^CLINIC-P', '--clinic', 'CLINIC-P')).code).toBe(0);
    expect((await profile('Tight EPR', 'EPR-4^CLINIC-T', '--clinic', 'CLINIC-T', '--peer', '10.9.9.9')).code).toBe(0);
    const serveWarnings = async (...flags: string[]) => {
      const child = startCli(['serve', '--env', 'sbx', '--mllp', ...flags, '--data-dir', data]);
      const done = finished(child, 60_000);
      await new Promise<void>((resolve) =>
        child.stdout?.on('data', (chunk: Buffer) => chunk.includes('mllp:') && resolve()),
      );
      child.kill('SIGTERM');
      const run = await done;
      return run.stderr.split('\n').filter((l) => l.startsWith('warning: profile'));
    };
    // Bound to every address, admitting only 10.9.9.9 (no one in this test can connect).
    expect(await serveWarnings('0.0.0.0:0', '--allow', '10.9.9.9')).toEqual([
      "warning: profile 'Half EPR' (EPR-8^CLINIC-P) has no --peer binding: any peer the listener admits can send as " +
        'EPR-8^CLINIC-P (docs/security.md finding 27; rx-batch profile add-hl7 … --clinic CODE --peer ADDR)',
      "warning: profile 'Open EPR' (EPR-6^CLINIC-O) has no --peer or --clinic binding: any peer the listener admits " +
        'can send as EPR-6^CLINIC-O, for any clinic (docs/security.md finding 27; rx-batch profile add-hl7 … --clinic ' +
        'CODE --peer ADDR)',
    ]);
    expect(await serveWarnings('127.0.0.1:0')).toEqual([]);
    for (const name of ['Open EPR', 'Half EPR', 'Tight EPR']) {
      expect((await runCli(['profile', 'remove', name, '--data-dir', data])).code).toBe(0);
    }
  }, 90_000);

  it('refuses a limit that is not a whole number in range, naming it, before anything starts', async () => {
    const serveWith = (...flags: string[]) =>
      runCli(['serve', '--env', 'sbx', '--mllp', '127.0.0.1:0', ...flags, '--data-dir', data]);
    for (const [flags, said] of [
      [['--progress-seconds', 'abc'], '--progress-seconds takes a whole number from 1 to 86400, not "abc"'],
      [['--max-message-bytes', '1e6'], '--max-message-bytes takes a whole number from 1024 to 67108864, not "1e6"'],
      [['--max-connections', '0'], '--max-connections takes a whole number from 1 to 4096, not "0"'],
      [['--max-connections', '4096', '--max-message-bytes', '67108864'], 'at most 4 GiB'],
    ] as const) {
      const run = await serveWith(...flags);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(said);
      expect(run.stdout).not.toContain('mllp:');
    }
    for (const address of ['127.0.0.1:', '127.0.0.1:0x50', '127.0.0.1:1e3', '127.0.0.1:65536']) {
      const run = await runCli(['serve', '--env', 'sbx', '--mllp', address, '--data-dir', data]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`--mllp takes HOST:PORT, not "${address}"`);
    }
    const folder = join(root, 'limits-inbox');
    mkdirSync(folder, { recursive: true });
    const noListener = await runCli([
      'serve',
      '--env',
      'sbx',
      '--watch',
      folder,
      '--max-connections',
      '8',
      '--data-dir',
      data,
    ]);
    expect(noListener.code).toBe(2);
    expect(noListener.stderr).toContain('limits of the MLLP listener: give --mllp');
  }, 60_000);

  it('--max-connections N: one connection more is refused and logged, the ones open keep working', async () => {
    const child = startCli([
      'serve',
      '--env',
      'sbx',
      '--mllp',
      '127.0.0.1:0',
      '--max-connections',
      '1',
      '--data-dir',
      data,
    ]);
    const done = finished(child, 60_000);
    const port = await new Promise<number>((resolve) => {
      let out = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
        const ready = /^mllp: .*:(\d+)$/m.exec(out);
        if (ready) resolve(Number(ready[1]));
      });
    });
    const first = connect({ port, host: '127.0.0.1' });
    await once(first, 'connect');
    const second = connect({ port, host: '127.0.0.1' });
    // The listener closes the one over its limit unread.
    await once(second, 'close');
    // The open one is answered as before.
    const answer = new Promise<string>((resolve) => {
      let text = '';
      first.on('data', (chunk: Buffer) => {
        text += chunk.toString('latin1');
        if (text.endsWith('\x1c\r')) resolve(text);
      });
    });
    first.write(mllpFrame(writeRde011(uniqueOrder({}, 'CAP'), { controlId: 'CAP-1' })));
    expect(await answer).toMatch(/\rMSA\|AA\|CAP-1/);
    first.destroy();
    child.kill('SIGTERM');
    const run = await done;
    expect(run.stderr).toContain('intake: refused a connection: already 1 open');
  }, 60_000);

  it('prints mllp: and watching: when ready, takes messages and files, and stops on SIGTERM', async () => {
    const inbox = join(root, 'inbox');
    mkdirSync(inbox);
    writeFileSync(join(inbox, 'at-start.csv'), writeTemplateCsv([uniqueOrder()]));
    const child = startCli(['serve', '--env', 'sbx', '--mllp', '127.0.0.1:0', '--watch', inbox, '--data-dir', data]);
    const done = finished(child, 60_000);
    const ready = await new Promise<string[]>((resolve) => {
      let out = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const lines = out.split('\n');
        if (lines.length >= 3) resolve(lines.slice(0, 2));
      });
    });
    expect(ready[0]).toMatch(/^mllp: 127\.0\.0\.1:\d+$/);
    expect(ready[1]).toBe(`watching: ${inbox}`);
    const port = Number(ready[0]!.split(':').at(-1));
    const [ack] = await sendWithLibrary(port, [writeRde011(uniqueOrder(), { controlId: 'CLI-1' })]);
    expect(ack!.get('MSA.1')).toBe('AA');
    for (let i = 0; i < 100 && !readdirSync(join(inbox, 'done')).includes('at-start.csv'); i += 1) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(readdirSync(join(inbox, 'done'))).toEqual(['at-start.csv']);
    child.kill('SIGTERM');
    const run = await done;
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n').at(-1)).toMatch(/^Stopped\. intake: 1 AA, 0 AE, 0 AR, 0 resent, 1 files/);
    // The default rule holds for review: nothing queued.
    const status = await runCli(['status', '--json', '--data-dir', data]);
    expect(status.code).toBe(0);
  }, 90_000);
});
