// Renders build/icon.svg to build/icon.png (512×512, transparent corners), the one icon electron-builder needs:
// it derives the Windows .ico and macOS .icns from it. Run after editing the SVG: node scripts/render-icon.mjs
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium } from '@playwright/test';

const root = resolve(import.meta.dirname, '..');
const svg = readFileSync(resolve(root, 'build', 'icon.svg'), 'utf8');
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu'],
});
try {
  const page = await browser.newPage({ viewport: { width: 512, height: 512 }, deviceScaleFactor: 1 });
  await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
  await page.locator('svg').screenshot({ path: resolve(root, 'build', 'icon.png'), omitBackground: true });
  console.log('build/icon.png written');
} finally {
  await browser.close();
}
