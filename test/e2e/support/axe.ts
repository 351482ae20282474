import { AxeBuilder } from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';

/**
 * An axe-core pass over what the page shows now (issue #13's proof: every screen of the e2e run, no violation
 * allowed). Each violation is listed with the rule, its impact and the first elements it found, so a failure says
 * what to fix. `saveScreenshot` runs it on every screen it saves; specs call it for states they do not photograph.
 * RXBATCH_E2E_AXE=0 turns it off (for a run that is about something else, never in CI).
 */
export async function expectNoAxeViolations(page: Page, screen: string): Promise<void> {
  if (process.env.RXBATCH_E2E_AXE === '0') return;
  const results = await new AxeBuilder({ page }).analyze();
  const violations = results.violations.map(
    (violation) =>
      `${violation.id} (${violation.impact ?? 'unknown impact'}): ${violation.help} — ${violation.nodes
        .slice(0, 5)
        .map((node) => node.target.join(' '))
        .join('; ')}`,
  );
  expect(violations, `axe-core violations on the screen "${screen}"`).toEqual([]);
}
