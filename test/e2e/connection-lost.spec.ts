import { expect, test } from '@playwright/test';
import { startBrowserMode } from './support/browser-mode.js';
import { saveScreenshot } from './support/screenshots.js';
import { openWorkspace } from './support/workspace.js';

/**
 * Issue #13: when the page's link to Rx Batch is lost (here: Rx Batch itself stopped), the header says so at once,
 * and once: one alert whose words stay the same while the page tries again by itself. Its own app, so stopping it
 * touches no other spec. (Coming back is covered by renderer/src/api/bridge-socket.test.ts: a new launch here would
 * carry a new one-time key.)
 */
for (const size of [
  { name: '1024x700', width: 1024, height: 700, theme: 'light' as const },
  { name: '1920x1080', width: 1920, height: 1080, theme: 'dark' as const },
]) {
  test.describe(`connection lost, ${size.name}, ${size.theme}`, () => {
    test.use({ viewport: { width: size.width, height: size.height }, colorScheme: size.theme });

    test('the header says the connection is lost at once, once, and counts down to the next try', async ({ page }) => {
      const app = await startBrowserMode();
      let stopped = false;
      try {
        await openWorkspace(page, app, 'Submissions');
        const header = page.getByRole('status', { name: 'Rx Batch’s core' });
        await expect(header).toHaveText('');

        await app.stop();
        stopped = true;
        const alert = page.getByRole('alert').filter({ hasText: 'This page lost its connection to Rx Batch.' });
        await expect(alert).toBeVisible({ timeout: 3_000 });
        await expect(alert).toContainText('Orders already accepted are safe. The page reconnects by itself');
        // Several tries later (0.5, 1 and 2 s apart): still the one alert, with the same words.
        const words = await alert.textContent();
        await page.waitForTimeout(4_000);
        await expect(page.getByRole('alert')).toHaveCount(1);
        await expect(alert).toHaveText(words!);
        // Still where the admin was: a question the link lost (files handed over?) does not open Import.
        await expect(page.getByRole('heading', { level: 2, name: 'Submissions', exact: true })).toBeVisible();
        await expect(header.getByRole('timer')).toHaveAccessibleName(/^Next try in \d+ seconds?$/);
        await header.getByText('Technical details').click();
        await expect(header).toContainText('Lost the connection to Rx Batch');
        await saveScreenshot(page, `connection-lost-${size.name}-${size.theme}`);
      } finally {
        if (!stopped) await app.stop();
      }
    });
  });
}
