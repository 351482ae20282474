import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../../main/cli/testing/run-cli-captured.js';
import { sandboxEnvPerFile } from './support/serve-env.js';

/**
 * docs/security.md, finding 48: `serve --tls-key` read a private key any local user could read (an openssl key
 * written under umask 022 is 0644), and TLS files others could change (a client CA of their own admits their
 * clients), without a word. Serve now warns, naming the file, who can read or change it, and the fix, and still runs.
 */

const { root, data } = sandboxEnvPerFile('rx-serve-tls-files-');
const tls = join(root, 'tls');
const file = (name: string) => join(tls, name);

beforeAll(() => {
  mkdirSync(tls, { recursive: true });
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', file('server.key'), '-out', file('server.pem')].concat(
      ['-days', '1', '-subj', '/CN=localhost'],
    ),
    { stdio: 'ignore' },
  );
}, 60_000);

/** `serve` over TLS on a free loopback port, stopped as soon as it has started (the signal already given). */
async function serveOnce(...more: string[]) {
  const stopped = new AbortController();
  stopped.abort();
  const args = ['serve', '--env', 'sbx', '--mllp', '127.0.0.1:0', '--tls-cert', file('server.pem')];
  return runCliCaptured([...args, '--tls-key', file('server.key'), ...more, '--data-dir', data], stopped.signal);
}

const tlsWarnings = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('warning: --tls'));

describe('serve: the TLS files as their permissions leave them', () => {
  it('warns of a key every user can read, and of a client CA others can change, and still serves', async () => {
    chmodSync(file('server.key'), 0o644);
    chmodSync(file('server.pem'), 0o644);
    const run = await serveOnce('--tls-client-ca', file('server.pem'));
    chmodSync(file('server.pem'), 0o666);
    const shared = await serveOnce('--tls-client-ca', file('server.pem'));

    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^mllp: 127\.0\.0\.1:\d+$/m);
    expect(tlsWarnings(run.stderr)).toEqual([
      `warning: --tls-key ${file('server.key')}: its group and every user can read it (mode 0644): they can pose as ` +
        'this listener; chmod 600 it, owned by the account serve runs as',
    ]);
    // A CA others can write: theirs would admit their own clients.
    expect(tlsWarnings(shared.stderr)).toEqual([
      expect.stringContaining('warning: --tls-key'),
      `warning: --tls-cert ${file('server.pem')}: its group and every user can change it (mode 0666); chmod 644 it, ` +
        'owned by the account serve runs as',
      `warning: --tls-client-ca ${file('server.pem')}: its group and every user can change it (mode 0666); chmod ` +
        '644 it, owned by the account serve runs as',
    ]);
  }, 60_000);

  it('says nothing of a key only its owner can read', async () => {
    chmodSync(file('server.key'), 0o600);
    chmodSync(file('server.pem'), 0o644);
    const run = await serveOnce();
    expect(run.code).toBe(0);
    expect(tlsWarnings(run.stderr)).toEqual([]);
  }, 60_000);
});
