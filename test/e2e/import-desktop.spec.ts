import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.js';
import type { BrowserModeApp } from './support/browser-mode.js';
import { REPO_ROOT } from './support/browser-mode.js';
import { callBridge } from './support/bridge-client.js';
import { saveScreenshot } from './support/screenshots.js';
import { chooseBatchFile, openSection, openWorkspace } from './support/workspace.js';

/**
 * The Import screen and the data directory, in browser mode and as the desktop app shows them.
 *
 * Browser mode is the real thing: the page reads a chosen file and uploads its text, and the desktop-only items
 * are absent. The desktop app cannot run here (no Electron binary), so its renderer is driven in Chromium with a
 * stand-in for the preload: the same `call`/`on` transport carried to the real core over the bridge, with the
 * native dialog's choice and the OS's hand-overs played by the test. Imports by path then go through the real core.
 */

const TEMPLATE_EXAMPLE = join(REPO_ROOT, 'test', 'fixtures', 'import', 'template-example.csv');

test('browser mode: a chosen file is uploaded as text, and the desktop-only items are not offered', async ({
  app,
  page,
}) => {
  await openWorkspace(page, app, 'Import');
  await expect(page.getByRole('button', { name: 'Choose a file…' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Choose files…' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Choose a folder…' })).toHaveCount(0);
  await expect(page.getByText('Import a file by its path on this computer')).toBeVisible();

  await chooseBatchFile(page, 'browser-upload.csv', await readFile(TEMPLATE_EXAMPLE));
  await expect(page.getByRole('status').filter({ hasText: 'Imported 3 orders' })).toBeVisible();
  await expect(page.getByRole('grid', { name: 'Orders in browser-upload.csv' })).toBeVisible();
  // One file, so no per-file list: the outcome above says it all.
  await expect(page.getByRole('region', { name: 'Files imported' })).toHaveCount(0);

  await openSection(page, 'Settings');
  const data = page.getByRole('region', { name: 'Data' });
  await expect(data).toContainText(app.dataDir);
  await expect(data.getByRole('button', { name: 'Open in file manager' })).toHaveCount(0);
  await expect(data).toContainText('The desktop app can open it in the file manager');
});

/**
 * Stands in for the Electron preload: `window.rxBatch` carries calls and events to the real core over the bridge
 * (as the preload carries them over IPC), `app.info` says what the desktop app says, and the three desktop calls
 * are answered the way the shell answers them, from what the test put in `window.desktopDouble`.
 */
function installDesktopStandIn({ secret }: { secret: string }) {
  type Message = {
    challenge?: string;
    ready?: true;
    id?: number;
    ok?: boolean;
    value?: unknown;
    error?: unknown;
    event?: string;
    payload?: unknown;
  };
  type Files = { paths: string[]; skipped: Array<{ name: string; reason: string }> };
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  const pending = new Map<number, (message: Message) => void>();
  let nextId = 1;
  let socket: WebSocket | undefined;
  let ready: Promise<void> | undefined;
  const emit = (event: string, payload: unknown) => listeners.get(event)?.forEach((listener) => listener(payload));
  const connect = () =>
    (ready ??= new Promise<void>((resolve) => {
      // The page's side of the bridge's handshake (shared/bridge-handshake.ts), written out: this runs in the page.
      const base64url = (bytes: Uint8Array) =>
        btoa(String.fromCharCode(...bytes))
          .replace(/\+/g, '-')
          .replace(/\//g, '_')
          .replace(/=+$/, '');
      const proof = async (nonce: string) => {
        const encoder = new TextEncoder();
        const key = await crypto.subtle.importKey(
          'raw',
          encoder.encode(secret),
          { name: 'HMAC', hash: 'SHA-256' },
          false,
          ['sign'],
        );
        return base64url(
          new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(`rx-batch page\n${nonce}`))),
        );
      };
      socket = new WebSocket(`ws://${location.host}/rpc`);
      socket.onopen = () =>
        socket?.send(JSON.stringify({ hello: base64url(crypto.getRandomValues(new Uint8Array(32))) }));
      socket.onmessage = (raw: MessageEvent<string>) => {
        const message = JSON.parse(raw.data) as Message;
        if (message.challenge !== undefined) {
          void proof(message.challenge).then((answer) => socket?.send(JSON.stringify({ proof: answer })));
        } else if (message.ready) resolve();
        else if (message.event !== undefined) emit(message.event, message.payload);
        else if (message.id !== undefined) pending.get(message.id)?.(message);
      };
    }));

  const double = {
    /** What the native dialog will answer next (a cancel when empty). */
    nextChoice: { paths: [], skipped: [] } as Files,
    choices: [] as string[],
    waiting: { paths: [], skipped: [] } as Files,
    /** The OS hands files over: queued in main, then `import.requested`. */
    handOver(files: Files) {
      double.waiting = {
        paths: [...double.waiting.paths, ...files.paths],
        skipped: [...double.waiting.skipped, ...files.skipped],
      };
      emit('import.requested', { files: files.paths.length + files.skipped.length });
    },
    dataFolderOpened: 0,
    /** What the native retention dialog answers (main's `askConfirm`): a no is the core's refusal. */
    retentionConfirmed: true,
    retentionSets: 0,
  };
  const answer = (value: unknown) => Promise.resolve({ ok: true, value });

  Object.defineProperty(window, 'desktopDouble', { value: double });
  Object.defineProperty(window, 'rxBatch', {
    value: Object.freeze({
      async call(name: string, input: unknown) {
        if (name === 'files.choose') {
          double.choices.push((input as { purpose: string }).purpose);
          const choice = double.nextChoice;
          double.nextChoice = { paths: [], skipped: [] };
          return answer({ ok: true, ...choice });
        }
        if (name === 'import.takeRequested') {
          const taken = double.waiting;
          double.waiting = { paths: [], skipped: [] };
          return answer(taken);
        }
        if (name === 'app.openDataFolder') {
          double.dataFolderOpened += 1;
          return answer({ ok: true });
        }
        if (name === 'retention.set') {
          double.retentionSets += 1;
          // The core in browser mode asks no one: a yes goes through to it; a no is what the desktop core answers.
          if (!double.retentionConfirmed) {
            return {
              ok: false,
              error: {
                code: 'forbidden',
                message:
                  'Imported file copies are still kept for 90 days: keeping them for 30 days only was not confirmed.',
              },
            };
          }
        }
        await connect();
        const id = nextId++;
        const result = await new Promise<Message>((resolve) => {
          pending.set(id, resolve);
          socket?.send(JSON.stringify({ id, call: name, input }));
        });
        pending.delete(id);
        const value =
          name === 'app.info' && result.ok
            ? {
                ...(result.value as object),
                transport: 'electron',
                desktop: { fileDialogs: true, openDataFolder: true, confirmRetention: true },
              }
            : result.value;
        return result.ok ? { ok: true, value } : { ok: false, error: result.error };
      },
      on(event: string, listener: (payload: unknown) => void) {
        let set = listeners.get(event);
        if (!set) listeners.set(event, (set = new Set()));
        set.add(listener);
        void connect();
        return () => set.delete(listener);
      },
    }),
  });
}

type DesktopDouble = {
  nextChoice: { paths: string[]; skipped: Array<{ name: string; reason: string }> };
  choices: string[];
  handOver(files: { paths: string[]; skipped: Array<{ name: string; reason: string }> }): void;
  dataFolderOpened: number;
  retentionConfirmed: boolean;
  retentionSets: number;
};

async function openDesktopRenderer(page: Page, app: BrowserModeApp, section: string): Promise<void> {
  await page.addInitScript(installDesktopStandIn, { secret: app.secret });
  await page.goto(`${app.origin}/#/submissions`);
  await expect(page.getByRole('banner')).toContainText('Desktop app');
  await openSection(page, section);
}

const double = (page: Page) => ({
  choose: (files: DesktopDouble['nextChoice']) =>
    page.evaluate((next) => {
      (window as unknown as { desktopDouble: DesktopDouble }).desktopDouble.nextChoice = next;
    }, files),
  handOver: (files: DesktopDouble['nextChoice']) =>
    page.evaluate(
      (next) => (window as unknown as { desktopDouble: DesktopDouble }).desktopDouble.handOver(next),
      files,
    ),
  read: () =>
    page.evaluate(() => {
      const { choices, dataFolderOpened, retentionSets } = (window as unknown as { desktopDouble: DesktopDouble })
        .desktopDouble;
      return { choices, dataFolderOpened, retentionSets };
    }),
  confirmRetention: (answer: boolean) =>
    page.evaluate((yes) => {
      (window as unknown as { desktopDouble: DesktopDouble }).desktopDouble.retentionConfirmed = yes;
    }, answer),
});

test.describe('the desktop renderer (preload stood in for; the core is real)', () => {
  let folder: string;

  test.beforeAll(async ({ app }) => {
    // Inside the host's --import-dir: over the bridge (this stand-in's transport) no other path is read.
    folder = await mkdtemp(join(app.importDir, 'desktop-'));
    await mkdir(join(folder, 'in'));
    for (const name of ['monday.csv', 'tuesday.csv', 'wednesday.csv']) {
      await copyFile(TEMPLATE_EXAMPLE, join(folder, 'in', name));
    }
    await writeFile(join(folder, 'in', 'empty.csv'), '');
  });
  test.afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test('Choose files… uses the native dialog and imports each chosen file by path, in turn', async ({ app, page }) => {
    await openDesktopRenderer(page, app, 'Import');
    await expect(page.getByRole('button', { name: 'Choose a file…' })).toHaveCount(0);
    await expect(page.getByText('Import a file by its path on this computer')).toHaveCount(0);

    await double(page).choose({
      paths: [join(folder, 'in', 'monday.csv'), join(folder, 'in', 'empty.csv')],
      skipped: [{ name: 'scan.pdf', reason: 'not a CSV or HL7 file' }],
    });
    await page.getByRole('button', { name: 'Choose files…' }).click();
    const imported = page.getByRole('region', { name: 'Files imported' });
    await expect(imported.getByRole('listitem')).toHaveCount(2);
    await expect(imported.getByRole('listitem').first()).toContainText('monday.csv: 3 orders: 3 valid, 0 with errors');
    await expect(imported.getByRole('listitem').last()).toContainText('empty.csv: cannot be imported');
    await expect(page.getByRole('region', { name: 'Files not imported' })).toContainText(
      'scan.pdf: not a CSV or HL7 file',
    );
    await expect(page.getByRole('region', { name: 'Imported batches' })).toContainText('monday.csv');
    expect((await double(page).read()).choices).toEqual(['import']);

    // A cancelled dialog changes nothing.
    await page.getByRole('button', { name: 'Choose a folder…' }).click();
    await expect(imported.getByRole('listitem')).toHaveCount(2);
    expect((await double(page).read()).choices).toEqual(['import', 'import-folder']);
  });

  test('files handed over by the OS open the Import screen from any screen and are imported there', async ({
    app,
    page,
  }) => {
    await openDesktopRenderer(page, app, 'Orders');
    await double(page).handOver({
      paths: [join(folder, 'in', 'tuesday.csv'), join(folder, 'in', 'wednesday.csv')],
      skipped: [],
    });
    await expect(page.getByRole('heading', { level: 2, name: 'Import' })).toBeVisible();
    const imported = page.getByRole('region', { name: 'Files imported' });
    await expect(imported.getByRole('listitem')).toHaveCount(2);
    await expect(imported).toContainText('tuesday.csv: 3 orders');
    await expect(imported).toContainText('wednesday.csv: 3 orders');
    // The last one is open for review.
    await expect(page.getByRole('grid', { name: 'Orders in wednesday.csv' })).toBeVisible();
  });

  test('Settings offers to open the data directory in the file manager', async ({ app, page }) => {
    await openDesktopRenderer(page, app, 'Settings');
    const data = page.getByRole('region', { name: 'Data' });
    await expect(data).toContainText(app.dataDir);
    await expect(data).not.toContainText('The desktop app can open it');
    await data.getByRole('button', { name: 'Open in file manager' }).click();
    await expect.poll(async () => (await double(page).read()).dataFolderOpened).toBe(1);
    await expect(data.getByRole('alert')).toHaveCount(0);
  });

  test('a shorter retention is asked once, natively: the page asks nothing itself and shows a no', async ({
    app,
    page,
  }) => {
    await openDesktopRenderer(page, app, 'Settings');
    const section = page.getByRole('region', { name: 'Imported file copies' });
    const days = section.getByLabel('Days after an order is accepted, once it is finished');
    const pageQuestion = page.getByRole('dialog', { name: /Keep imported file copies for 30 days only\?/ });
    try {
      // The native dialog says no: the core's refusal is shown, and nothing changed.
      await double(page).confirmRetention(false);
      await days.fill('30');
      await days.press('Enter');
      await expect(section.getByRole('alert')).toContainText('keeping them for 30 days only was not confirmed');
      await expect(pageQuestion).toHaveCount(0);
      expect((await callBridge(app, 'retention.get', {})).stagedDays).toBe(90);

      // Yes: saved at once, still with no question of the page's own.
      await double(page).confirmRetention(true);
      await days.press('Enter');
      await expect(
        page.getByRole('status').filter({ hasText: 'Saved: imported file copies are kept for 30 days.' }),
      ).toBeVisible();
      await expect(pageQuestion).toHaveCount(0);
      expect((await double(page).read()).retentionSets).toBe(2);
      expect((await callBridge(app, 'retention.get', {})).stagedDays).toBe(30);
      await saveScreenshot(page, 'settings-retention-desktop');
    } finally {
      await callBridge(app, 'retention.set', { stagedDays: 90 });
    }
  });
});
