import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEMPLATE_COLUMNS } from '../core/model/field-catalogue.js';
import { headerFingerprint, type MappingProfile } from '../core/model/mapping-profile.js';
import { templateCsv, uniqueOrder } from '../core/staging/testing/staging-fixtures.js';
import { openStore } from '../core/store/store.js';
import { runCli } from './testing/run-cli-process.js';

// A profile made where the app runs, taken to the data directory `serve` runs on: `profile export`, then
// `profile import`, each a real child process on its own data directory.
describe('rx-batch profile export / import', () => {
  let dir: string;
  let desk: string;
  let server: string;
  const on = (dataDir: string, ...args: string[]) => runCli([...args, '--data-dir', dataDir]);

  // A clinic system's CSV layout: every template column under a header of its own.
  const header = TEMPLATE_COLUMNS.map((column) => `EPR ${column}`);
  const layout: MappingProfile = {
    name: 'EPR layout',
    headerFingerprint: headerFingerprint(header),
    columns: Object.fromEntries(TEMPLATE_COLUMNS.map((column) => [column, `EPR ${column}`])),
    constants: {},
    valueMaps: {},
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rxbatch-cli-profile-file-'));
    desk = join(dir, 'desk');
    server = join(dir, 'server');
    const store = openStore({ dataDir: desk });
    store.mappingProfiles.save(layout, header);
    store.close();
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('carries a CSV layout with its header, so a file with that header is read with it unasked', async () => {
    // Before: the layout is unknown on the server, and the refusal says how a profile comes there.
    const csv = join(dir, 'from-epr.csv');
    const [, ...rows] = templateCsv([uniqueOrder({}, 'PRF')]).split('\r\n');
    writeFileSync(csv, [header.map((cell) => cell.replace(/[A-Z]/g, 'x')).join(','), ...rows].join('\r\n'));
    const unknown = await on(server, 'import', csv, '--env', 'local-sandbox');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('No header row found');
    expect(unknown.stderr).toContain('`rx-batch profile import FILE` there');

    const file = join(dir, 'epr-layout.json');
    const exported = await on(desk, 'profile', 'export', 'EPR layout', file);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain(`Wrote profile 'EPR layout' to ${file}`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ profile: layout, headerCells: header });

    expect(await on(server, 'profile', 'import', file)).toMatchObject({ code: 0 });
    writeFileSync(csv, [header.join(','), ...rows].join('\r\n'));
    const imported = await on(server, 'import', csv, '--env', 'local-sandbox', '--json');
    expect(imported.stderr).toContain("from-epr.csv: profile 'EPR layout' was chosen for this file's header");
    expect(JSON.parse(imported.stdout)).toMatchObject({ orders: 1, valid: 1 });
    expect(imported.code).toBe(0);

    // Again under another name: a second profile, the first unchanged.
    const renamed = await on(server, 'profile', 'import', file, '--name', 'EPR layout 2');
    expect(renamed.code).toBe(0);
    expect(renamed.stdout).toContain("Saved profile 'EPR layout 2'");
    expect((await on(server, 'profile', 'list')).stdout).toMatch(/EPR layout\t[\s\S]*EPR layout 2\t/);
  }, 120_000);

  it("carries an HL7 sender's profile with its binding to clinics and peers", async () => {
    const added = await on(
      desk,
      ...['profile', 'add-hl7', 'EPR hl7', '--sender', 'EPR^CLINIC-A', '--set', 'paymentType=Account'],
      ...['--clinic', 'CLINIC-A', '--peer', '10.20.0.0/16'],
    );
    expect(added.code).toBe(0);
    const file = join(dir, 'epr-hl7.json');
    expect(await on(desk, 'profile', 'export', 'EPR hl7', file)).toMatchObject({ code: 0 });
    expect(await on(server, 'profile', 'import', file)).toMatchObject({ code: 0 });
    const listed = await on(server, 'profile', 'list');
    expect(listed.stdout).toMatch(/EPR hl7\tHL7 from EPR\^CLINIC-A \(RDE\^O11\)\tpaymentType=Account\t.*CLINIC-A/);
    expect(listed.stdout).toContain('10.20.0.0/16');
  }, 120_000);

  it('refuses a file that is not a profile, naming the file and what is wrong, and saves nothing', async () => {
    const write = (name: string, text: string) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    };
    const good = JSON.parse(readFileSync(join(dir, 'epr-layout.json'), 'utf8')) as Record<string, unknown>;
    const cases: Array<[string, string, string]> = [
      ['not-json.json', 'surname,dob\n', 'is not JSON'],
      ['other.json', JSON.stringify({ ...good, format: 'something else' }), 'format:'],
      [
        'proto.json',
        JSON.stringify(good).replace('"constants":{}', '"constants":{"__proto__":{"polluted":"1"}}'),
        'a key named __proto__ is not accepted (profile.constants.__proto__)',
      ],
      [
        'no-name.json',
        JSON.stringify({ ...good, profile: { ...(good.profile as object), name: ' ' } }),
        'profile.name',
      ],
    ];
    for (const [name, text, said] of cases) {
      const path = write(name, text);
      const refused = await on(server, 'profile', 'import', path, '--name', `from ${name}`);
      expect(refused.code, name).toBe(2);
      expect(refused.stderr, name).toContain(path);
      expect(refused.stderr, name).toContain(said);
    }
    const reserved = await on(server, 'profile', 'import', join(dir, 'epr-layout.json'), '--name', 'template');
    expect(reserved.code).toBe(2);
    expect(reserved.stderr).toContain('is a name the importer uses itself');
    expect((await on(server, 'profile', 'list')).stdout).not.toMatch(/^(from |template\t)/m);
    expect((await on(server, 'profile', 'export', 'nobody', join(dir, 'x.json'))).code).toBe(2);
  }, 120_000);

  it.skipIf(process.platform === 'win32')(
    'refuses a FIFO at once, never waiting for a writer with the data directory held',
    async () => {
      const fifo = join(dir, 'profile.fifo');
      execFileSync('mkfifo', [fifo]);
      const refused = await on(server, 'profile', 'import', fifo);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`${fifo} is not a regular file`);
      // The data directory is free again: the next command runs.
      expect((await on(server, 'profile', 'list')).code).toBe(0);
    },
    60_000,
  );
});
