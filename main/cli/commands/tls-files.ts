import { stat } from 'node:fs/promises';
import { othersAccess, type AccessPhrase } from '../../core/platform/file-access.js';

/**
 * `serve`'s TLS files, as their permissions leave them (docs/security.md, finding 48). The private key is the
 * listener's identity: another account that can read it can pose as this listener to the clinic systems (and read
 * what they send it); one that can write the key, the certificate or the client CA can put its own there, and a CA
 * of its own admits its own clients under mutual TLS. ssh refuses such a key; serve warns, since the files are the
 * admin's and a group such as ssl-cert may be meant, and goes on. One line per file, none when all are private.
 */

export interface TlsFiles {
  tlsKey?: string | undefined;
  tlsCert?: string | undefined;
  tlsClientCa?: string | undefined;
}

async function fileWarning(option: string, path: string, secret: boolean): Promise<string | undefined> {
  // Links followed: what matters is the file the listener reads. One that cannot be read is the listener's to say.
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  const changes: AccessPhrase = ['w', (who, mode) => `${who} can change it (${mode})`];
  const reads: AccessPhrase = ['r', (who, mode) => `${who} can read it (${mode}): they can pose as this listener`];
  const said = othersAccess(info, secret ? [reads, changes] : [changes]);
  if (said.length === 0) return undefined;
  const fix = secret ? 'chmod 600 it' : 'chmod 644 it';
  return `warning: ${option} ${path}: ${said.join('; ')}; ${fix}, owned by the account serve runs as`;
}

/** The warnings for the TLS files given (none on Windows, whose files have no such modes). */
export async function tlsFileWarnings(files: TlsFiles): Promise<string[]> {
  if (process.platform === 'win32') return [];
  const given: [string, string | undefined, boolean][] = [
    ['--tls-key', files.tlsKey, true],
    ['--tls-cert', files.tlsCert, false],
    ['--tls-client-ca', files.tlsClientCa, false],
  ];
  const checks = given.map(([option, path, secret]) =>
    path === undefined ? Promise.resolve(undefined) : fileWarning(option, path, secret),
  );
  return (await Promise.all(checks)).filter((warning): warning is string => warning !== undefined);
}
