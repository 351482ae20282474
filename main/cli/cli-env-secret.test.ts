import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../sandbox/index.js';
import {
  startHostileIdentity,
  tokenAnswer,
  type HostileIdentity,
  type IdentityAnswer,
} from '../core/auth/testing/hostile-identity.js';
import { CLI_SECRETS_FILE } from './cli-context.js';
import { CLIENT_SECRET_ON_COMMAND_LINE, runCli as runCliInProcess } from './run.js';
import { runCliCaptured } from './testing/run-cli-captured.js';
import { envAddArgs, finished, startCli } from './testing/run-cli-process.js';

/**
 * `env add` keeps a client secret only once the identity server accepted it (a real token request to a real
 * sandbox), never a refused one, says so when it could not be checked, and takes it from standard input too.
 */

let sandbox: RunningSandbox;
let dir: string;
let dataDir: string;

beforeAll(async () => {
  sandbox = await startSandbox({ statusStepMs: 3_600_000 });
});

afterAll(async () => {
  await sandbox?.close();
});

afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function freshDataDir(): string {
  dir = mkdtempSync(join(tmpdir(), 'rxbatch-cli-secret-'));
  dataDir = join(dir, 'data');
  return dataDir;
}

const withoutSecret = (name: string) => envAddArgs(name, sandbox).filter((arg) => !arg.startsWith('--client-secret'));

function run(args: string[], options: { stdin?: string } = {}) {
  return finished(startCli([...args, '--data-dir', dataDir], {}, options));
}

/** The CLI's secrets file as written: which keys it holds, and its raw text. */
function secretsFile(): { keys: string[]; text: string } {
  const file = join(dataDir, CLI_SECRETS_FILE);
  if (!existsSync(file)) return { keys: [], text: '' };
  const text = readFileSync(file, 'utf8');
  return { keys: Object.keys((JSON.parse(text) as { entries: Record<string, string> }).entries), text };
}

const clientSecretKey = (environmentId: string) => `auth/${environmentId}/client-secret`;

/** The environment's saved sign-in (client secret and tokens) as the secrets file holds it (the file's audit head moves with every entry). */
function signInOf(environmentId: string): Record<string, string> {
  const { text } = secretsFile();
  const { entries } = JSON.parse(text) as { entries: Record<string, string> };
  return Object.fromEntries(Object.entries(entries).filter(([key]) => key.startsWith(`auth/${environmentId}/`)));
}

/** A loopback port nothing listens on: an identity server that cannot be reached. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('env add checks a client secret before keeping it', () => {
  it('does not keep a secret the identity server refuses, says so without the secret, and exits 1', async () => {
    freshDataDir();
    const wrong = `wrong-${sandbox.serviceClient.clientSecret.slice(6)}x`;
    const added = await run([...withoutSecret('refused'), `--client-secret=${wrong}`]);
    expect(added.code).toBe(1);
    expect(added.stderr).toContain('The client secret was not saved: the identity server did not accept it.');
    expect(added.stderr).toContain('invalid_client');
    expect(added.stdout + added.stderr).not.toContain(wrong);
    const { keys, text } = secretsFile();
    expect(keys).not.toContain(clientSecretKey('refused'));
    expect(text).not.toContain(wrong);
    // The profile is saved; nothing signs in with it until a right secret is given.
    const login = await run(['login', 'refused']);
    expect(login.code).toBe(1);
    expect(login.stdout).toMatch(/Sign-in failed/);
  }, 60_000);

  it('keeps a secret the identity server accepted, and is signed in', async () => {
    freshDataDir();
    const added = await run(envAddArgs('accepted', sandbox));
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('Client secret accepted by the identity server and saved; signed in.');
    expect(added.stdout + added.stderr).not.toContain(sandbox.serviceClient.clientSecret);
    // Taken, but the safer ways are named (security finding 45); before, nothing was said.
    expect(added.stderr).toContain(
      'warning: --client-secret puts the secret on the command line, which every local user can read (ps)',
    );
    expect(added.stderr).toContain('--client-secret-env VAR or --client-secret-stdin');
    expect(secretsFile().keys).toContain(clientSecretKey('accepted'));
    const listed = JSON.parse((await run(['env', 'list', '--json'])).stdout) as Array<{
      id: string;
      signedIn: boolean;
    }>;
    expect(listed.find((row) => row.id === 'accepted')?.signedIn).toBe(true);
    expect(await run(['login', 'accepted'])).toMatchObject({ code: 0, stdout: 'Signed in to accepted.\n' });
  }, 60_000);

  it('takes the secret from standard input (one trailing newline off), checked the same way', async () => {
    freshDataDir();
    const added = await run([...withoutSecret('piped'), '--client-secret-stdin', '--json'], {
      stdin: `${sandbox.serviceClient.clientSecret}\n`,
    });
    expect(added.code).toBe(0);
    expect(added.stderr).not.toContain(CLIENT_SECRET_ON_COMMAND_LINE);
    expect(JSON.parse(added.stdout)).toMatchObject({
      id: 'piped',
      grant: 'client_credentials',
      clientSecret: 'verified',
    });
    expect(secretsFile().keys).toContain(clientSecretKey('piped'));
    expect(await run(['login', 'piped'])).toMatchObject({ code: 0 });

    // Only one newline comes off: a second one is part of what was sent, so the server refuses it.
    const twice = await run([...withoutSecret('piped-twice'), '--client-secret-stdin'], {
      stdin: `${sandbox.serviceClient.clientSecret}\n\n`,
    });
    expect(twice.code).toBe(1);
    expect(secretsFile().keys).not.toContain(clientSecretKey('piped-twice'));
  }, 60_000);

  it('refuses --client-secret-stdin with an empty input, a terminal, or another secret option (exit 2)', async () => {
    freshDataDir();
    const cases: Array<[string[], { stdin?: string }, RegExp]> = [
      [[...withoutSecret('x'), '--client-secret-stdin'], { stdin: '' }, /standard input was empty/],
      [[...withoutSecret('x'), '--client-secret-stdin'], { stdin: '\n' }, /standard input was empty/],
      [[...withoutSecret('x'), '--client-secret-stdin'], {}, /standard input was empty/],
      [[...envAddArgs('x', sandbox), '--client-secret-stdin'], { stdin: 'x\n' }, /not both/],
      [
        [...withoutSecret('x'), '--client-secret-env', 'RXB_ANY', '--client-secret-stdin'],
        { stdin: 'x\n' },
        /give --client-secret-env or --client-secret-stdin, not both/,
      ],
      [
        [...envAddArgs('x', sandbox), '--client-secret-env', 'RXB_ANY', '--client-secret-stdin'],
        { stdin: 'x\n' },
        /give only one of --client-secret, --client-secret-env, --client-secret-stdin/,
      ],
      [[...withoutSecret('x'), '--unverified'], {}, /--unverified is for a client secret given here/],
    ];
    for (const [args, options, message] of cases) {
      const result = await run(args, options);
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.stderr).toMatch(message);
    }
    expect(secretsFile().keys).not.toContain(clientSecretKey('x'));

    // A terminal: nobody is meant to type a secret where it would echo; the CLI says to pipe it.
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let errors = '';
    stderr.on('data', (chunk: Buffer) => (errors += chunk.toString('utf8')));
    const code = await runCliInProcess([...withoutSecret('tty'), '--client-secret-stdin', '--data-dir', dataDir], {
      stdout,
      stderr,
      env: {},
      signal: new AbortController().signal,
      stdin: Object.assign(Readable.from([]), { isTTY: true }),
    });
    expect(code).toBe(2);
    expect(errors).toContain('--client-secret-stdin: standard input is a terminal; pipe the secret in instead');
  }, 90_000);

  it('when the identity server cannot be reached: not kept, unless --unverified, which keeps it and says so', async () => {
    freshDataDir();
    const issuer = `http://127.0.0.1:${await closedPort()}`;
    const args = (name: string) => [
      'env',
      'add',
      name,
      '--api',
      sandbox.apiUrl,
      '--issuer',
      issuer,
      '--client-id',
      sandbox.serviceClient.clientId,
      '--client-secret-stdin',
    ];
    const secret = sandbox.serviceClient.clientSecret;

    const refused = await run(args('offline'), { stdin: secret });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('The client secret was not saved: it could not be checked.');
    expect(refused.stderr).toContain('--unverified');
    expect(refused.stdout + refused.stderr).not.toContain(secret);
    expect(secretsFile().keys).not.toContain(clientSecretKey('offline'));

    const kept = await run([...args('offline'), '--unverified'], { stdin: secret });
    expect(kept.code).toBe(0);
    expect(kept.stderr).toContain('Client secret saved UNVERIFIED: the identity server could not be reached');
    expect(kept.stdout).toContain('Next: rx-batch login offline');
    expect(kept.stdout + kept.stderr).not.toContain(secret);
    expect(secretsFile().keys).toContain(clientSecretKey('offline'));
    const log = await run(['log', 'export', '--format', 'jsonl']);
    expect(log.stdout).toContain('environment.client-secret-unverified');
  }, 90_000);
});

describe('env add when the identity server answers the token request with nothing usable', () => {
  let idp: HostileIdentity;
  const secret = 'unusable-answer-secret-4b7e';
  const accessToken = 'AT-NEVER-PRINTED-91c3';

  beforeAll(async () => {
    idp = await startHostileIdentity();
  });
  afterAll(async () => {
    await idp?.close();
  });

  const addArgs = (name: string) => [
    'env',
    'add',
    name,
    '--api',
    sandbox.apiUrl,
    '--issuer',
    idp.issuer,
    '--client-id',
    'rx-batch-service',
    '--client-secret-stdin',
  ];

  async function environments(): Promise<Array<{ id: string; apiBaseUrl: string; signedIn: boolean }>> {
    return JSON.parse((await run(['env', 'list', '--json'])).stdout) as Array<{
      id: string;
      apiBaseUrl: string;
      signedIn: boolean;
    }>;
  }

  it.each<[string, IdentityAnswer, RegExp]>([
    [
      'a 200 without an access token',
      { status: 200, body: { token_type: 'Bearer', expires_in: 300 } },
      /gave an unusable answer to the token request: .*"access_token"/,
    ],
    ['a 200 that is not JSON', { status: 200, body: '<html>Welcome</html>' }, /unusable answer .*JSON/],
    [
      'a 200 larger than the 1 MiB read',
      tokenAnswer({ access_token: accessToken, padding: 'x'.repeat(2 * 1024 * 1024) }),
      /larger than 1 MiB: it was not read/,
    ],
    [
      'a token that is not Bearer',
      tokenAnswer({ token_type: 'DPoP', access_token: accessToken }),
      /issued a dpop token; Rx Batch sends Bearer tokens only/,
    ],
  ])(
    '%s: nothing is saved, not even with --unverified; no "added" line; the error on stderr; exit 1',
    async (_, answer, why) => {
      freshDataDir();
      idp.onToken(() => answer);
      for (const extra of [[], ['--unverified'], ['--json']]) {
        const added = await run([...addArgs('unusable'), ...extra], { stdin: secret });
        expect({ extra, code: added.code }).toEqual({ extra, code: 1 });
        expect(added.stdout).toBe('');
        expect(added.stderr).toMatch(why);
        expect(added.stderr).toContain('Nothing was saved: unusable is not added');
        expect(added.stdout + added.stderr).not.toContain(secret);
        expect(added.stdout + added.stderr).not.toContain(accessToken);
      }
      expect((await environments()).map((row) => row.id)).not.toContain('unusable');
      expect(secretsFile().keys.filter((key) => key.startsWith('auth/unusable/'))).toEqual([]);
    },
  );

  it('an environment already signed in keeps its settings and sign-in when the new server answers unusably', async () => {
    freshDataDir();
    expect(await run(envAddArgs('kept', sandbox))).toMatchObject({ code: 0 });
    const before = signInOf('kept');
    expect(Object.keys(before)).toEqual([clientSecretKey('kept'), 'auth/kept/tokens']);
    idp.onToken(() => ({ status: 200, body: { token_type: 'Bearer' } }));
    const updated = await run(addArgs('kept'), { stdin: secret });
    expect(updated.code).toBe(1);
    expect(updated.stdout).toBe('');
    expect(updated.stderr).toContain('Nothing was saved: kept is not updated');
    expect(signInOf('kept')).toEqual(before);
    expect((await environments()).find((row) => row.id === 'kept')).toMatchObject({ signedIn: true });
    expect(await run(['login', 'kept'])).toMatchObject({ code: 0, stdout: 'Signed in to kept.\n' });
  }, 60_000);
});

describe('a mistyped command line never echoes a client secret', () => {
  const secret = 'TOPSECRET-5f2c9e';

  it('names no option value when the command is missing, nor an argument that follows a secret option', async () => {
    for (const args of [
      ['--client-secret', secret],
      ['--data-dir', '/tmp/rx-never-opened', `--client-secret=${secret}`],
      ['env', 'ad', 'x', '--client-secret', secret],
      // --client-secret-stdin takes no value: what follows it is a stray argument.
      ['env', 'add', 'x', '--api', 'https://a.example', '--client-secret-stdin', secret],
      ['env', 'add', 'x', secret],
    ]) {
      const run = await runCliCaptured(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toMatch(/See rx-batch --help/);
      expect(run.stdout + run.stderr, args.join(' ')).not.toContain(secret);
    }
  });

  it('still names a mistyped command and a stray argument elsewhere', async () => {
    expect((await runCliCaptured(['stauts'])).stderr).toContain(
      'unknown command: stauts\ndid you mean rx-batch status?',
    );
    expect((await runCliCaptured(['accept', '3', '4'])).stderr).toContain('rx-batch accept takes BATCH, not "4"');
  });
});
