import { execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, openSync, readdirSync, readlinkSync, renameSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CODE_LISTS } from '../../../shared/environment.js';
import { importFile, writeRde011, writeTemplateCsv, type ImportedOrder, type MappingProfile } from './index.js';
import { exampleOrder } from './testing/write-fixtures.js';

/**
 * The importer opens a file once and reads everything from that handle (docs/security.md, import by path): a FIFO
 * is refused without waiting for a writer, a folder with a problem, and a name given to another file during an
 * import changes nothing of what is read.
 */

const base = { codeLists: DEFAULT_CODE_LISTS, today: new Date('2025-06-01T00:00:00Z') };
const HL7: MappingProfile = {
  name: 'hl7',
  columns: {},
  constants: { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' },
  valueMaps: {},
};

let dir: string;
const fifos: string[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rx-import-once-'));
});
afterEach(() => {
  // Should an open ever wait on a FIFO (the old importer did), a writer lets it go, so the run ends.
  for (const fifo of fifos.splice(0)) {
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // no reader waiting: nothing to release
    }
  }
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A signal that calls `then` the first time the importer looks at it, i.e. once the file is being read. */
function signalCalling(then: () => void): AbortSignal {
  const signal = new AbortController().signal;
  let called = false;
  signal.throwIfAborted = () => {
    if (!called) then();
    called = true;
  };
  return signal;
}

/** Descriptors of this process still open on `path` (Linux; none elsewhere). */
function descriptorsOn(path: string): number {
  if (!existsSync('/proc/self/fd')) return 0;
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(path);
    } catch {
      return false;
    }
  }).length;
}

const ids = (orders: readonly ImportedOrder[]) => orders.map((order) => order.clinicOrderId);

describe('an import file is opened once', () => {
  it.skipIf(process.platform === 'win32')('refuses a FIFO at once, without waiting for a writer', async () => {
    const fifo = join(dir, 'orders.csv');
    execFileSync('mkfifo', [fifo]);
    fifos.push(fifo);
    const report = await importFile(fifo, base);
    expect(report.orderCount).toBe(0);
    expect(report.fileProblems).toEqual([
      expect.objectContaining({
        severity: 'error',
        code: 'file.notRegular',
        file: 'orders.csv',
        text: 'The file is a named pipe (FIFO), not a CSV or HL7 text file; only regular files are read.',
      }),
    ]);
    await rm(fifo);
  });

  it('refuses a folder with a problem naming it', async () => {
    const folder = join(dir, 'march.csv');
    await mkdir(folder);
    const report = await importFile(folder, base);
    expect(report.fileProblems).toEqual([
      expect.objectContaining({ severity: 'error', code: 'file.notRegular', file: 'march.csv' }),
    ]);
    expect(report.fileProblems[0]!.text).toMatch(/^The path is a folder/);
  });

  it.each([
    {
      kind: 'CSV',
      file: (prefix: string) =>
        writeTemplateCsv([exampleOrder(`${prefix}-1`), exampleOrder(`${prefix}-2`), exampleOrder(`${prefix}-3`)]),
      options: {},
    },
    {
      kind: 'HL7',
      file: (prefix: string) =>
        [1, 2, 3].map((n) => writeRde011(exampleOrder(`${prefix}-${n}`), { controlId: `${prefix}${n}` })).join('\r'),
      options: { profile: HL7 },
    },
  ])(
    'reads the $kind file it opened to the end, though its name is given to another file meanwhile',
    async ({ kind, file, options }) => {
      const path = join(dir, `swapped.${kind.toLowerCase()}`);
      const other = join(dir, `other.${kind.toLowerCase()}`);
      await writeFile(path, file('ORIG'));
      const plain = await importFile(path, { ...base, ...options });
      expect(ids(plain.orders)).toEqual(['ORIG-1', 'ORIG-2', 'ORIG-3']);
      expect(plain.invalidCount).toBe(0);

      await writeFile(other, file('SWAP'));
      const swapped = await importFile(path, {
        ...base,
        ...options,
        // As soon as the first bytes are read, another file takes the name (a writer in a shared folder).
        signal: signalCalling(() => renameSync(other, path)),
      });
      expect(ids(swapped.orders)).toEqual(['ORIG-1', 'ORIG-2', 'ORIG-3']);
      expect(swapped.orders.map((order) => order.body)).toEqual(plain.orders.map((order) => order.body));
      expect(swapped.fileProblems).toEqual(plain.fileProblems);
      // The one handle is closed when the import ends.
      expect(descriptorsOn(dir)).toBe(0);
    },
  );
});
