import type { Locator, Page } from '@playwright/test';
import { verhoeffCheckDigit } from '../../shared/snomed.js';
import { expect, test } from './fixtures.js';
import { expectNoAxeViolations } from './support/axe.js';
import { addDeviceEnvironment } from './support/device-environment.js';
import { saveScreenshot } from './support/screenshots.js';
import { csvFromTemplate, TEMPLATE_ROW, templateHeader } from './support/template-csv.js';
import {
  chooseBatchFile,
  chooseEnvironment,
  escapeRegExp,
  localSandbox,
  openSection,
  uniqueSuffix,
} from './support/workspace.js';

/**
 * The preview as a workspace (issue #13), at 1024×700 and 1920×1080, in the light and the dark theme: the grid
 * across the window with order, clinic order id and surname frozen, columns sized to their content (dm+d codes
 * whole), a summary naming each order's fields at fault; next and previous problem (buttons, F8 and Shift+F8) to
 * the exact cell, scrolled into view both ways; the problems filter showing only the columns with problems;
 * tooltips inside the window and a focused cell that never spills; undo and redo (keys and buttons) of an edit and
 * of a find and replace whose count is shown first, and each order's history; an accepted batch that no longer
 * offers to accept nothing, and discarding; HL7 profiles chosen from the code lists, and the error that names the
 * setting; accepting into a non-sandbox environment confirmed by name and count. Every screen saved is checked
 * with axe-core.
 */

test.setTimeout(150_000);

const SIZES = [
  { name: '1024x700', width: 1024, height: 700 },
  { name: '1920x1080', width: 1920, height: 1080 },
] as const;
const THEMES = ['light', 'dark'] as const;

/** An 18-digit dm+d code (valid check digit): the widest there is. */
const LONG_DMD = (() => {
  const body = '10100001100000110';
  return `${body}${verhoeffCheckDigit(body)}`;
})();
const LONG_MEDICATION =
  'Paracetamol 500mg tablets, soluble, sugar free, in a blister pack of thirty-two, for adults only';

const cell = (grid: Locator, name: string | RegExp) =>
  grid.getByRole('gridcell', { name, exact: typeof name === 'string' });

/** The part of the grid a cell shows in: below the header, right of the frozen columns (unless it is one). */
async function expectInView(page: Page, grid: Locator, target: Locator, frozen: boolean): Promise<void> {
  const gridBox = (await grid.boundingBox())!;
  const box = (await target.boundingBox())!;
  const surname = (await grid.getByRole('columnheader', { name: 'Surname', exact: true }).boundingBox())!;
  const left = frozen ? gridBox.x : surname.x + surname.width;
  // Two pixels of slack for borders and fractional scroll offsets.
  expect(box.y).toBeGreaterThanOrEqual(gridBox.y + 34);
  expect(box.y + box.height).toBeLessThanOrEqual(gridBox.y + gridBox.height + 2);
  expect(box.x).toBeGreaterThanOrEqual(left - 2);
  expect(box.x + box.width).toBeLessThanOrEqual(gridBox.x + gridBox.width + 2);
  const viewport = page.viewportSize()!;
  expect(box.y + box.height).toBeLessThanOrEqual(viewport.height + 2);
}

/** The grid's one tooltip (aria-hidden: it repeats the focused cell's description) lies inside the window. */
async function expectTooltipInside(page: Page, text: RegExp): Promise<void> {
  const tip = page.locator('.grid-tip');
  await expect(tip).toBeVisible();
  await expect(tip).toHaveText(text);
  const box = (await tip.boundingBox())!;
  const viewport = page.viewportSize()!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.y).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
  expect(box.y + box.height).toBeLessThanOrEqual(viewport.height);
}

for (const size of SIZES) {
  for (const theme of THEMES) {
    const shot = (name: string) => `preview-workspace-${name}-${size.name}-${theme}`;

    test.describe(`preview workspace, ${size.name}, ${theme}`, () => {
      test.use({ viewport: { width: size.width, height: size.height }, colorScheme: theme });

      test('errors found not hunted, undo and redo, find and replace counted first, accept and discard', async ({
        app,
        page,
      }) => {
        const run = uniqueSuffix();
        const id = (n: number) => `PW-${run}-${n}`;
        const local = await localSandbox(app);
        const header = await templateHeader(app);
        const rows: Array<Record<string, string>> = Array.from({ length: 40 }, (_, i) => ({
          ...TEMPLATE_ROW,
          clinicOrderId: id(i + 1),
        }));
        // A delivery address of its own, so the home postcode is the order's only problem.
        rows[2] = {
          ...rows[2]!,
          homePostCode: 'NOT A POSTCODE',
          deliveryAddress1: '2 Low Street',
          deliveryCity: 'Leeds',
          deliveryPostCode: 'LS2 7HY',
          deliveryCountryCode: 'GBR',
        };
        rows[4] = { ...rows[4]!, dmdCode: LONG_DMD };
        rows[9] = { ...rows[9]!, medication: LONG_MEDICATION };
        rows[24] = { ...rows[24]!, surname: '' };
        rows[26] = { ...rows[26]!, courierCode: 'Royal Mail 24' };
        rows[27] = { ...rows[27]!, courierCode: 'Royal Mail 24' };
        rows[34] = { ...rows[34]!, dmdCode: '42109611000001108' };
        const file = `workspace-${run}.csv`;

        await page.goto(app.url);
        await chooseEnvironment(page, local.name);
        await openSection(page, 'Import');
        await chooseBatchFile(page, file, csvFromTemplate(header, rows));
        await expect(page.getByRole('status').filter({ hasText: 'Imported 40 orders' })).toContainText(
          '35 valid, 5 with errors',
        );
        const grid = page.getByRole('grid', { name: `Orders in ${file}` });
        await expect(cell(grid, id(1))).toBeVisible();

        // The grid across the window, starting high in it (the window goes to it), most of the window tall.
        const viewport = page.viewportSize()!;
        const gridBox = (await grid.boundingBox())!;
        expect(gridBox.y).toBeLessThan(viewport.height * 0.5);
        expect(gridBox.height).toBeGreaterThan(viewport.height * 0.5);
        const details = page.getByRole('button', { name: 'Hide details' });
        await details.click();
        await expect(page.getByRole('button', { name: 'Show details' })).toHaveAttribute('aria-expanded', 'false');
        expect((await grid.boundingBox())!.width).toBeGreaterThan(viewport.width - 320);
        await page.getByRole('button', { name: 'Show details' }).click();

        // Columns sized to their content: a dm+d code whole, even the 18-digit one; frozen first columns.
        const headers = await grid.getByRole('columnheader').allTextContents();
        expect(headers.slice(0, 4)).toEqual(['Order', 'Clinic order id', 'Surname', 'Problems']);
        const longCode = cell(grid, LONG_DMD);
        await longCode.scrollIntoViewIfNeeded();
        expect(await longCode.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
        await grid.evaluate((element) => (element.scrollLeft = element.scrollWidth));
        await expectInView(page, grid, cell(grid, id(1)), true);
        await grid.evaluate((element) => (element.scrollLeft = 0));

        // The summary names the fields at fault.
        await expect(cell(grid, 'Errors in: Home postcode')).toBeVisible();

        // Next problem (F8) from the first order: the exact cell, focused, in view; its tooltip inside the window.
        await cell(grid, id(1)).click();
        await page.keyboard.press('F8');
        const postcode = cell(grid, 'NOT A POSTCODE');
        await expect(postcode).toBeFocused();
        await expect(postcode).toHaveAccessibleDescription(/Error: .*postcode/i);
        await expectInView(page, grid, postcode, false);
        await expectTooltipInside(page, /postcode/i);
        await expect(page.getByText('F8 / Shift+F8: next / previous problem')).toBeVisible();
        await saveScreenshot(page, shot('next-problem'));

        // The button does the same; far down (scrolled in first) and far right (scrolled sideways).
        const next = page.getByRole('button', { name: 'Next problem' });
        await expect(next).toHaveAttribute('aria-keyshortcuts', 'F8');
        await next.click(); // order 25: its surname is missing, a frozen cell (empty: found by its description)
        await expect(page.locator(':focus')).toHaveAccessibleDescription(/Error: .*[Ss]urname/);
        await next.click(); // order 27: courier
        await expect(cell(grid, 'Royal Mail 24').first()).toBeFocused();
        await next.click(); // order 28: courier
        await expect(cell(grid, 'Royal Mail 24').nth(1)).toBeFocused();
        await next.click(); // order 35: the dm+d code, far right
        const badDmd = cell(grid, '42109611000001108');
        await expect(badDmd).toBeFocused();
        await expectInView(page, grid, badDmd, false);
        await expectTooltipInside(page, /dm\+d/);
        await saveScreenshot(page, shot('problem-far-right'));
        await page.keyboard.press('Shift+F8');
        await expect(cell(grid, 'Royal Mail 24').nth(1)).toBeFocused();
        await page.keyboard.press('F8');
        await page.keyboard.press('F8');
        await expect(page.getByRole('status').filter({ hasText: 'No problem after this cell.' })).toBeVisible();

        // A focused cell never spills over its neighbour: a long medication is cut at its own edge.
        await grid.evaluate((element) => (element.scrollTop = 0));
        const long = cell(grid, LONG_MEDICATION);
        await long.click();
        await expect(long).toBeFocused();
        expect(await long.evaluate((element) => getComputedStyle(element).overflowX)).toBe('clip');

        // Only orders with problems: only the columns with problems, so every bad cell is in view.
        await page.getByLabel('Only orders with problems').check();
        await expect(grid.getByRole('columnheader', { name: 'Home postcode' })).toBeVisible();
        await expect(grid.getByRole('columnheader', { name: 'Telephone' })).toHaveCount(0);
        await expect(cell(grid, id(1))).toHaveCount(0);
        for (const bad of ['NOT A POSTCODE', '42109611000001108']) await expect(cell(grid, bad)).toBeVisible();
        await saveScreenshot(page, shot('only-problems'));
        await page.getByRole('button', { name: 'Show every column' }).click();
        await expect(grid.getByRole('columnheader', { name: 'Telephone' })).toBeVisible();
        await page.getByLabel('Only orders with problems').uncheck();

        // An edit, undone and redone with the keys; its history in the order's details.
        const counts = page.getByRole('status', { name: 'Batch counts' });
        await cell(grid, id(1)).click();
        await page.keyboard.press('F8');
        await expect(postcode).toBeFocused();
        await page.keyboard.press('Enter');
        await grid.getByRole('textbox', { name: /Home postcode, order 3/ }).fill('LS1 4AP');
        await page.keyboard.press('Enter');
        await expect(counts).toContainText('36 valid');
        await page.keyboard.press('Control+z');
        await expect(page.getByRole('status').filter({ hasText: 'Undid the edit of order 3' })).toBeVisible();
        await expect(counts).toContainText('35 valid');
        await expect(postcode).toBeVisible();
        await postcode.click();
        await page.keyboard.press('Control+Shift+z');
        await expect(page.getByRole('status').filter({ hasText: 'Redid the edit of order 3' })).toBeVisible();
        await expect(counts).toContainText('36 valid');
        const order3 = page.getByRole('complementary', { name: new RegExp(`Order 3 \\(${id(3)}\\)`) });
        const history = order3.getByRole('region', { name: 'Changes' });
        await expect(history).toContainText('Home postcode: NOT A POSTCODE → LS1 4AP');
        await saveScreenshot(page, shot('history'));

        // Find and replace says how many cells will change before it changes them; one undo takes all of it back.
        const findReplace = page.getByRole('region', { name: 'Find and replace' });
        await findReplace.getByLabel('Column').selectOption({ label: 'Courier' });
        await findReplace.getByLabel('Find').fill('Royal Mail 24');
        await findReplace.getByLabel('Replace with').fill('RMT24');
        await findReplace.getByRole('button', { name: 'Replace all…' }).click();
        await expect(findReplace.getByRole('status')).toHaveText('2 cells in 2 orders will change.');
        await expect(counts).toContainText('36 valid');
        await saveScreenshot(page, shot('replace-count'));
        await findReplace.getByRole('button', { name: 'Replace 2 cells' }).click();
        await expect(findReplace.getByRole('status')).toContainText('Changed 2 cells in 2 orders');
        await expect(counts).toContainText('38 valid');
        const undo = page.getByRole('button', { name: 'Undo', exact: true });
        await expect(undo).toHaveAttribute('aria-keyshortcuts', 'Control+Z');
        await undo.click();
        await expect(counts).toContainText('36 valid');
        await page.getByRole('button', { name: 'Redo', exact: true }).click();
        await expect(counts).toContainText('38 valid');

        // Accept (the local sandbox: no question asked); what stays has errors, and nothing offers to accept 0.
        await page.getByRole('button', { name: 'Accept 38 valid orders' }).click();
        await expect(page.getByRole('status').filter({ hasText: 'Accepted 38 orders' })).toBeVisible();
        await expect(page.getByRole('button', { name: /^Accept/ })).toHaveCount(0);
        await expect(
          page.getByText('No order is ready to accept: fix the errors, or discard the batch.'),
        ).toBeVisible();
        await expect(undo).toBeDisabled();

        // The two left are not wanted: the batch is discarded, after a question.
        await page.getByRole('button', { name: 'Discard batch…' }).click();
        const dialog = page.getByRole('dialog', { name: `Discard ${file}?` });
        await expect(dialog).toContainText('Its 2 staged orders will never be sent');
        await expect(dialog).toContainText('The 38 orders already accepted stay in the outbox');
        await expectNoAxeViolations(page, shot('discard-dialog'));
        await dialog.getByRole('button', { name: 'Discard batch' }).click();
        await expect(
          page
            .getByRole('status')
            .filter({ hasText: /^Discarded/ })
            .first(),
        ).toBeVisible();
        await expect(page.getByRole('button', { name: 'Discard batch…' })).toHaveCount(0);
        await expect(page.getByRole('button', { name: 'Undo', exact: true })).toHaveCount(0);
        const batches = page.getByRole('region', { name: 'Imported batches' });
        await expect(
          batches.getByRole('row', { name: new RegExp(`${escapeRegExp(file)} \\(discarded\\)`) }),
        ).toBeVisible();
        await saveScreenshot(page, shot('discarded'));
      });

      test('HL7 profiles choose payment type, courier and currency from the code lists; the error names the setting', async ({
        app,
        page,
      }) => {
        const run = uniqueSuffix();
        const sender = `EPR-${run}`;
        const local = await localSandbox(app);
        const message = (n: number) =>
          [
            `MSH|^~\\&|${sender}|CLINIC-PW|CLOUDRX|PHARMACY|20250101120000||RDE^O11^RDE_O11|MSG-${run}-${n}|P|2.5`,
            'PID|1||||Example^Alex^^^Ms||19800115|F|||1 High Street^Flat 2^Leeds^West Yorkshire^LS1 4AP^GBR^H||07700900123^PRN^PH',
            `ORC|NW|PH-${run}-${n}||||||||||7123456^Dr Jane Smith|||||||||Journey Clinic^^^^^^^^^CLINIC-PW|10 Market Street^^^^YO1 7HH^GBR|01904 000000^WPN^PH`,
            'RXE||42109611000001109^Paracetamol 500mg tablets^DMD|||||^Two tablets up to four times a day|||32||0',
          ].join('\r');
        await page.goto(app.url);
        await chooseEnvironment(page, local.name);
        await openSection(page, 'Import');
        await chooseBatchFile(page, `profile-${run}.hl7`, [message(1), message(2)].join('\r'));
        await expect(page.getByRole('status').filter({ hasText: 'Imported 2 orders' })).toContainText('0 valid');

        // The errors on the order say which profile setting fixes them: the next problems from the order's cell
        // are the currency (no column: on the summary), the payment type and the courier.
        const grid = page.getByRole('grid', { name: `Orders in profile-${run}.hl7` });
        await grid.getByRole('gridcell', { name: /^1 : / }).click();
        const focused = page.locator(':focus');
        await page.keyboard.press('F8');
        await expect(focused).toHaveAccessibleDescription(/no currency: choose one for "Currency" in the HL7 mapping/);
        await page.keyboard.press('F8');
        await expect(focused).toHaveAccessibleDescription(/no payment type: choose one for "Payment type"/);
        await page.keyboard.press('F8');
        await expect(focused).toHaveAccessibleDescription(
          /An HL7 order message has no courier: choose one for "Courier" in the HL7 mapping profile for this sender \(Import, "HL7 mapping"\)/,
        );

        // Chosen from the environment's code lists (couriers also from the service), not typed.
        const mapping = page.getByRole('region', { name: 'HL7 mapping' });
        const courierChoice = mapping.getByRole('combobox', { name: 'Constant for Courier', exact: true });
        for (const code of local.codeLists.courierCodes) {
          await expect(courierChoice.getByRole('option', { name: code, exact: true })).toHaveCount(1);
        }
        await expect(mapping.getByRole('combobox', { name: 'Constant for Payment type', exact: true })).toBeVisible();
        await mapping.getByRole('combobox', { name: 'Constant for Payment type', exact: true }).selectOption('Account');
        await courierChoice.selectOption(local.codeLists.courierCodes[0]!);
        await mapping.getByRole('combobox', { name: 'Constant for Currency', exact: true }).selectOption('GBP');
        await saveScreenshot(page, shot('hl7-profile'));
        await mapping.getByLabel('Profile name').fill(`PW ${run}`);
        await mapping.getByRole('button', { name: 'Save profile and import again' }).click();
        await expect(page.getByRole('status').filter({ hasText: 'Imported 2 orders' })).toContainText(
          '2 valid, 0 with errors',
        );
      });

      test('accepting into an environment that is not the local sandbox asks first, naming it and the count', async ({
        app,
        page,
      }) => {
        const run = uniqueSuffix();
        const environment = await addDeviceEnvironment(app, `Clinic live ${run}`);
        const header = await templateHeader(app);
        const rows = [1, 2].map((n) => ({ ...TEMPLATE_ROW, clinicOrderId: `PWR-${run}-${n}` }));
        await page.goto(app.url);
        await chooseEnvironment(page, environment.name);
        await openSection(page, 'Import');
        await chooseBatchFile(page, `remote-${run}.csv`, csvFromTemplate(header, rows));
        await expect(page.getByRole('status').filter({ hasText: 'Imported 2 orders' })).toContainText('2 valid');

        await page.getByRole('button', { name: 'Accept 2 valid orders' }).click();
        const dialog = page.getByRole('dialog', { name: `Accept 2 orders into ${environment.name}?` });
        await expect(dialog).toContainText(`${environment.name} is not the local sandbox`);
        await expect(dialog.getByRole('button', { name: 'Not now' })).toBeFocused();
        await saveScreenshot(page, shot('accept-confirm'));
        await dialog.getByRole('button', { name: 'Not now' }).click();
        await expect(dialog).toHaveCount(0);
        await expect(page.getByRole('status', { name: 'Batch counts' })).toContainText('2 valid');

        await page.getByRole('button', { name: 'Accept 2 valid orders' }).click();
        await dialog.getByRole('button', { name: `Accept 2 orders into ${environment.name}` }).click();
        await expect(page.getByRole('status').filter({ hasText: 'Accepted 2 orders' })).toBeVisible();
        await expect(page.getByText('✓ Every order of this batch is accepted (2 orders).')).toBeVisible();
        await expect(page.getByRole('button', { name: /^Accept/ })).toHaveCount(0);
        await expect(page.getByRole('button', { name: 'Discard batch…' })).toHaveCount(0);
      });
    });
  }
}
