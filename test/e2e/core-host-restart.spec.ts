import { readdir, readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { startBrowserMode } from './support/browser-mode.js';
import { openSection, openWorkspace } from './support/workspace.js';

/**
 * Browser mode runs the core in a child process of the bridge host (main/host/). When that process dies, the page
 * hears it at once (the header says the core is restarting), the bridge host starts it again, and the page carries
 * on with the new one. Its own app, so killing its core touches no other spec.
 */

/** The bridge host's child processes that run the core host entry, from /proc. */
async function coreHostsOf(pid: number): Promise<number[]> {
  const tasks = await readdir(`/proc/${pid}/task`);
  const lists = await Promise.all(
    tasks.map((task) => readFile(`/proc/${pid}/task/${task}/children`, 'utf8').catch(() => '')),
  );
  const children = lists.flatMap((list) => list.split(/\s+/).filter(Boolean).map(Number));
  const commands = await Promise.all(
    children.map((child) => readFile(`/proc/${child}/cmdline`, 'utf8').catch(() => '')),
  );
  // tsx may run an esbuild service beside it: only the host entry counts.
  return children.filter((_, index) => commands[index]!.includes('core-host'));
}

test('the core host killed: the header says so at once, and the page carries on once it is back', async ({ page }) => {
  test.skip(process.platform !== 'linux', 'finds the core host in /proc');
  const app = await startBrowserMode();
  try {
    await openWorkspace(page, app);
    const identity = page.getByRole('banner').getByRole('status', { name: 'Signed-in identity' });
    await expect(identity).toHaveText(/Signed in/);
    const coreStatus = page.getByRole('status', { name: 'Rx Batch’s core' });
    await expect(coreStatus).toHaveText('');

    const [host, ...others] = await coreHostsOf(app.pid);
    expect(others).toEqual([]);
    process.kill(host!, 'SIGKILL');
    await expect(coreStatus).toContainText('Rx Batch’s core stopped unexpectedly and is restarting');
    await expect(coreStatus).toContainText('Orders already accepted are safe');

    await expect(coreStatus).toHaveText('', { timeout: 30_000 });
    const [restarted] = await coreHostsOf(app.pid);
    expect(restarted).toBeDefined();
    expect(restarted).not.toBe(host);
    // The new core answers the page: the sign-in read again, and a call made now.
    await expect(identity).toHaveText(/Signed in/);
    // A call made now is answered by the new core, whose local sandbox listens on a new port.
    await openSection(page, 'Sign-in');
    const connection = page.getByRole('region', { name: 'Connection' });
    await connection.getByRole('button', { name: 'Check connection' }).click();
    await expect(connection.getByRole('status')).toContainText(/Order Service\s*Reachable/);
  } finally {
    await app.stop();
  }
});
