import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expectNoAxeViolations } from './axe.js';
import { REPO_ROOT } from './browser-mode.js';

/**
 * Saves a screenshot of the page under test-results/ (a test artifact), and into docs/screenshots/ for the
 * README only when UPDATE_DOC_SCREENSHOTS is set (each run's copy differs: ports, times). Every screen saved is
 * also checked with axe-core first, failing on any violation (support/axe.ts).
 */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  await expectNoAxeViolations(page, name);
  const shot = join(REPO_ROOT, 'test-results', 'screens', `${name}.png`);
  await mkdir(join(REPO_ROOT, 'test-results', 'screens'), { recursive: true });
  await page.screenshot({ path: shot, fullPage: true });
  if (process.env.UPDATE_DOC_SCREENSHOTS) {
    await mkdir(join(REPO_ROOT, 'docs', 'screenshots'), { recursive: true });
    await copyFile(shot, join(REPO_ROOT, 'docs', 'screenshots', `${name}.png`));
  }
}
