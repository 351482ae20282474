import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { expect, test } from '@playwright/test';
import { LAUNCHER_FILE } from '../../main/bridge/launcher-file.js';
import { envAddArgs, finished, runCli, startCli, type CliRun } from '../../main/cli/testing/run-cli-process.js';
import { writeRde011 } from '../../main/core/importing/rde-writer.js';
import { startSandbox } from '../../sandbox/index.js';
import { sendWithLibrary } from '../support/hl7-client.js';
import { sampleCreateWithClinic } from '../support/orders.js';
import { chooseEnvironment, openSection, uniqueSuffix } from './support/workspace.js';

// Issue #17: while `rx-batch serve --ui` runs, an admin reviews what it holds. Serve listens for MLLP and holds what
// arrives for review; the page, opened from serve's launcher (the secret is never printed), shows serve's listener
// with its message count and offers no Start; the held day batch is reviewed and accepted in the preview.

const SENDER = { sendingApplication: 'E2E-SRV', sendingFacility: 'CLINIC-S' };

test('serve --ui: the Intake screen shows serve’s listener, and its held day batch is reviewed on screen', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const sandbox = await startSandbox({ statusStepMs: 3_600_000 });
  const data = await mkdtemp(join(tmpdir(), 'rxbatch-e2e-serve-'));
  const cli = async (args: string[]) => expect((await runCli([...args, '--data-dir', data], 60_000)).code).toBe(0);
  let stop: (() => Promise<CliRun>) | undefined;
  try {
    // The environment, and a profile for the sender (what an HL7 message cannot carry), as a supplier sets them up.
    await cli(envAddArgs('sbx', sandbox));
    await cli([
      ...['profile', 'add-hl7', 'E2E serve', '--sender', `${SENDER.sendingApplication}^${SENDER.sendingFacility}`],
      ...['--set', 'prescription.paymentType=Account', '--set', 'prescription.courierCode=RMT24'],
      ...['--set', 'prescription.currencyCode=GBP'],
    ]);
    const serve = startCli([
      'serve',
      '--env',
      'sbx',
      '--mllp',
      '127.0.0.1:0',
      '--on-arrival',
      'hold',
      '--ui',
      '--data-dir',
      data,
    ]);
    serve.stdout?.setEncoding('utf8');
    const lines: string[] = [];
    const ready = new Promise<void>((resolve) => {
      createInterface({ input: serve.stdout! }).on('line', (line) => {
        lines.push(line);
        if (line.startsWith('ui: ')) resolve();
      });
    });
    const done = finished(serve, 110_000);
    stop = () => {
      serve.kill('SIGTERM');
      return done;
    };
    await Promise.race([ready, done.then((run) => Promise.reject(new Error(`serve ended: ${run.stderr}`)))]);
    const mllpPort = Number(/^mllp: 127\.0\.0\.1:(\d+)$/.exec(lines[0] ?? '')?.[1]);
    const origin = /^ui: (http:\/\/127\.0\.0\.1:\d+)\/$/.exec(lines.at(-1) ?? '')?.[1];
    expect(origin).toBeTruthy();

    const suffix = uniqueSuffix();
    const message = writeRde011(sampleCreateWithClinic({ clinicOrderId: `SRV-${suffix}` }), {
      controlId: `SRV-${suffix}`,
      ...SENDER,
    });
    const [ack] = await sendWithLibrary(mllpPort, [message]);
    expect(ack!.get('MSA.1')).toBe('AA');

    // Opened as the app opens it on a data folder serve holds: from the 0600 launcher, which holds the secret.
    const launcher = join(data, LAUNCHER_FILE);
    expect(await readFile(launcher, 'utf8')).toContain(`${origin}/#secret=`);
    await page.goto(pathToFileURL(launcher).href);
    await expect(page).toHaveURL(`${origin}/`);
    await page.getByRole('navigation', { name: 'Workspace' }).waitFor();
    await chooseEnvironment(page, 'sbx');

    await openSection(page, 'Intake');
    const notice = page.getByRole('region', { name: 'Run by rx-batch serve' });
    await expect(notice).toContainText(`(PID ${serve.pid})`);
    await expect(notice).toContainText('stops when serve is stopped');
    await expect(page.getByRole('button', { name: 'Start intake' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Stop intake' })).toHaveCount(0);
    const listener = page.getByRole('region', { name: `MLLP listener 127.0.0.1:${mllpPort}` });
    await expect(listener).toContainText('Listening');
    await expect(listener.getByRole('img')).toHaveAccessibleName(/^1 message in the last hour/);
    const batchLink = listener.getByRole('link', { name: /^Batch \d+: E2E-SRV\^CLINIC-S \d{4}-\d{2}-\d{2} \(MLLP\)$/ });

    // The held batch, reviewed and accepted in the preview while serve runs.
    await batchLink.click();
    await expect(page.getByRole('heading', { level: 2, name: 'Import', exact: true })).toBeVisible();
    await expect(page.getByRole('grid')).toContainText(`SRV-${suffix}`);
    await page.getByRole('button', { name: 'Accept 1 valid order' }).click();
    await page
      .getByRole('dialog', { name: 'Accept 1 order into sbx?' })
      .getByRole('button', { name: 'Accept 1 order into sbx' })
      .click();
    await expect(page.getByRole('status').filter({ hasText: 'Accepted 1 order' })).toBeVisible();

    // Serve stops cleanly on SIGTERM with its page open, as without one.
    const run = await stop();
    stop = undefined;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n').at(-1)).toMatch(/^Stopped\. intake: 1 AA/);
  } finally {
    await stop?.();
    await sandbox.close();
    await rm(data, { recursive: true, force: true });
  }
});
