import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from './private-files.js';
import type { SecretStore } from './secret-store.js';

/**
 * How values are sealed before they reach the disk. The desktop shell passes Electron's `safeStorage` (the OS
 * keychain's key); the CLI, which runs headless and unattended, passes `PLAIN_TEXT_CODEC` and relies on the
 * file's 0600 mode, like other command-line tools keep their credentials.
 */
export interface SecretCodec {
  /** Written into the file: a file sealed one way is never opened another way. */
  readonly name: string;
  seal(plain: string): Promise<string>;
  open(sealed: string): Promise<string>;
}

export const PLAIN_TEXT_CODEC: SecretCodec = {
  name: 'plain-text',
  seal: (plain) => Promise.resolve(plain),
  open: (sealed) => Promise.resolve(sealed),
};

const fileSchema = z.object({
  version: z.literal(1),
  codec: z.string(),
  entries: z.record(z.string(), z.string()),
});
type SecretFile = z.infer<typeof fileSchema>;

export class SecretFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretFileError';
  }
}

/**
 * A SecretStore in one JSON file (mode 0600, directory 0700) of sealed values. The file is read on every call
 * (one process owns a data directory at a time, but this keeps no stale copy) and replaced atomically on every
 * change (write a temp file, then rename), with writes queued so two changes never interleave.
 */
export class FileSecretStore implements SecretStore {
  readonly file: string;
  readonly #codec: SecretCodec;
  #writes: Promise<void> = Promise.resolve();

  constructor(file: string, codec: SecretCodec) {
    this.file = file;
    this.#codec = codec;
  }

  async get(key: string): Promise<string | null> {
    await this.#writes;
    const sealed = this.#read().entries[key];
    if (sealed === undefined) return null;
    try {
      return await this.#codec.open(sealed);
    } catch {
      // Never echo the sealed value or the codec's error text, which may quote it.
      throw new SecretFileError(`a saved secret in ${this.file} could not be decrypted`);
    }
  }

  set(key: string, value: string): Promise<void> {
    return this.#change(async (file) => {
      file.entries[key] = await this.#codec.seal(value);
    });
  }

  delete(key: string): Promise<void> {
    return this.#change((file) => {
      delete file.entries[key];
      return Promise.resolve();
    });
  }

  #change(edit: (file: SecretFile) => Promise<void>): Promise<void> {
    const next = this.#writes.then(async () => {
      const file = this.#read();
      await edit(file);
      this.#write(file);
    });
    this.#writes = next.catch(() => undefined);
    return next;
  }

  #read(): SecretFile {
    if (!existsSync(this.file)) return { version: 1, codec: this.#codec.name, entries: {} };
    let parsed: z.ZodSafeParseResult<SecretFile>;
    try {
      parsed = fileSchema.safeParse(JSON.parse(readFileSync(this.file, 'utf8')));
    } catch {
      throw new SecretFileError(`${this.file} is not a readable secrets file`);
    }
    if (!parsed.success) throw new SecretFileError(`${this.file} is not a readable secrets file`);
    if (parsed.data.codec !== this.#codec.name) {
      throw new SecretFileError(
        `${this.file} was sealed with ${parsed.data.codec}, not ${this.#codec.name}; it is left untouched`,
      );
    }
    return parsed.data;
  }

  #write(file: SecretFile): void {
    ensurePrivateDir(dirname(this.file));
    const temp = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      writeFileSync(temp, `${JSON.stringify(file)}\n`, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
      renameSync(temp, this.file);
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
  }
}
