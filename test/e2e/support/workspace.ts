import type { Page } from '@playwright/test';
import type { EnvironmentView } from '../../../shared/environment.js';
import { callBridge } from './bridge-client.js';
import type { BrowserModeApp } from './browser-mode.js';
import { rememberSandboxAdminToken } from './sandbox-http.js';

/** The local sandbox the app started, as the core lists it (its admin token noted for sandbox-http.ts). */
export async function localSandbox(app: BrowserModeApp): Promise<EnvironmentView> {
  const environments = await callBridge(app, 'environments.list', {});
  const local = environments.find((environment) => environment.kind === 'local-sandbox');
  if (!local?.running) throw new Error('the local sandbox is not running in browser mode');
  rememberSandboxAdminToken(local.apiBaseUrl, app.sandboxAdminToken);
  return local;
}

/** Opens the app (the printed address carries the launch secret) and one section of the workspace. */
export async function openWorkspace(page: Page, app: BrowserModeApp, section?: string): Promise<void> {
  await page.goto(app.url);
  await page.getByRole('navigation', { name: 'Workspace' }).waitFor();
  if (section) await openSection(page, section);
}

export async function openSection(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name, exact: false }).click();
  await page.getByRole('heading', { level: 2, name, exact: true }).waitFor();
}

/**
 * Chooses a batch file on the Import screen as an admin does in the browser: a name and its content (text is sent
 * as UTF-8; bytes as they are, for other encodings).
 */
export async function chooseBatchFile(page: Page, name: string, content: string | Buffer): Promise<void> {
  await page.getByLabel('Batch file (CSV or HL7)').setInputFiles({
    name,
    mimeType: name.endsWith('.hl7') ? 'text/plain' : 'text/csv',
    buffer: typeof content === 'string' ? Buffer.from(content, 'utf8') : content,
  });
}

export async function chooseEnvironment(page: Page, name: string): Promise<void> {
  await page.getByRole('banner').getByLabel('Environment').selectOption({ label: name });
}

/** A fresh suffix for names and ids, so specs sharing one app never see each other's data. */
export function uniqueSuffix(): string {
  return `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`.toUpperCase();
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
