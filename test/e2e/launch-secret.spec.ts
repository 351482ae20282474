import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, test } from '@playwright/test';
import { LAUNCHER_FILE } from '../../main/bridge/launcher-file.js';
import { startBrowserMode } from './support/browser-mode.js';

/**
 * Finding 4 of docs/security.md: the bridge's launch secret is never on a command line (every local user can
 * read those in `ps`), in the host's output, or in any process environment. Browser mode is started as for a
 * person (it opens the browser), with a stand-in `xdg-open` that records what it was given.
 */
test('browser mode opens the browser without its secret on any command line, output or environment', async ({
  page,
}) => {
  test.skip(process.platform !== 'linux', 'reads /proc and stands in for xdg-open');
  const bin = await mkdtemp(join(tmpdir(), 'rxbatch-opener-'));
  const record = join(bin, 'record');
  await writeFile(
    join(bin, 'xdg-open'),
    `#!/bin/sh\n{ echo "argv: $*"; echo "parent: $(tr '\\0' ' ' < /proc/$PPID/cmdline)"; env; } > "${record}"\n`,
  );
  await chmod(join(bin, 'xdg-open'), 0o755);
  const app = await startBrowserMode({
    open: true,
    env: { PATH: `${bin}:${process.env.PATH ?? ''}`, DISPLAY: ':99', WAYLAND_DISPLAY: '' },
  });
  try {
    await expect.poll(() => readFile(record, 'utf8').catch(() => ''), { timeout: 15_000 }).toContain('argv: ');
    const opener = await readFile(record, 'utf8');
    const launcher = join(app.dataDir, LAUNCHER_FILE);
    expect(opener).toContain(`argv: ${pathToFileURL(launcher).href}`);

    const seen = {
      'the opener (argv, parent command line, environment)': opener,
      'the host command line': await readFile(`/proc/${app.pid}/cmdline`, 'utf8'),
      'the host environment': await readFile(`/proc/${app.pid}/environ`, 'utf8'),
      'the host output': app.printed(),
    };
    for (const [where, text] of Object.entries(seen)) expect(text.includes(app.secret), where).toBe(false);

    // Only this user can read the launcher, and it takes the browser into the app.
    expect((await stat(launcher)).mode & 0o777).toBe(0o600);
    await page.goto(pathToFileURL(launcher).href);
    await expect(page.getByRole('heading', { name: 'Rx Batch', level: 1 })).toBeVisible();
    await expect(page).toHaveURL(`${app.origin}/`);
  } finally {
    await app.stop();
    await rm(bin, { recursive: true, force: true });
  }
});
