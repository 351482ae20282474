import { stat } from 'node:fs/promises';

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

/** Who besides the owner a mode lets `read` or write, in words; '' for no one. */
function others(mode: number, read: boolean): string {
  const bit = read ? 0o4 : 0o2;
  const who = [mode & (bit << 3) ? 'its group' : '', mode & bit ? 'every user' : ''].filter(Boolean);
  return who.join(' and ');
}

async function fileWarning(option: string, path: string, secret: boolean): Promise<string | undefined> {
  // Links followed: what matters is the file the listener reads. One that cannot be read is the listener's to say.
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  const mode = info.mode & 0o777;
  const octal = `mode 0${mode.toString(8).padStart(3, '0')}`;
  const uid = process.getuid?.();
  const said: string[] = [];
  if (uid !== undefined && info.uid !== uid && info.uid !== 0)
    said.push(`it belongs to another user (uid ${info.uid})`);
  const readers = secret ? others(mode, true) : '';
  if (readers) said.push(`${readers} can read it (${octal}): they can pose as this listener`);
  const writers = others(mode, false);
  if (writers) said.push(`${writers} can change it (${octal})`);
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
