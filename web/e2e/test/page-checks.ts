/** What the browser suites check and keep of a page: screenshots, axe findings, errors. */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { REPO_ROOT as REPO } from '@taco/harness';

export const SCREENSHOTS = join(REPO, 'artifacts/screenshots');
/** Screenshots of the app's states that are committed, to be looked at in review. */
export const COMMITTED_SCREENSHOTS = join(REPO, 'web/e2e/screenshots');

/** Saves a screenshot of the page as a test artifact (or into `dir`). */
export async function snap(page: Page, name: string, dir = SCREENSHOTS): Promise<void> {
  mkdirSync(dir, { recursive: true });
  // Entrances (a dialog settling, a drawer sliding in) are shown as they end.
  await page.screenshot({ path: join(dir, `${name}.png`), animations: 'disabled' });
}

/** The impacts that fail a test: axe's `serious` and `critical`. */
const FAILING_IMPACTS = new Set(['serious', 'critical']);

interface AxeResults {
  violations: {
    id: string;
    impact?: string | null;
    help: string;
    nodes: { target: unknown[]; failureSummary?: string }[];
  }[];
}

/**
 * Runs axe-core (from node_modules) on the page as it is now and returns its serious and critical
 * findings, one line each ("rule: help — selector: summary"); an empty list means none. The
 * page's context needs `bypassCSP: true`, since axe is injected as an inline script.
 */
export async function axeFindings(page: Page): Promise<string[]> {
  const loaded = await page.evaluate(() => 'axe' in window);
  if (!loaded) await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
  const results = await page.evaluate(async () => {
    const { axe } = window as unknown as {
      axe: { run: (context: Document, options: object) => Promise<unknown> };
    };
    return (await axe.run(document, { resultTypes: ['violations'] })) as AxeResults;
  });
  return results.violations
    .filter((violation) => FAILING_IMPACTS.has(violation.impact ?? ''))
    .flatMap((violation) =>
      violation.nodes.map(
        (node) =>
          `${violation.id} (${violation.impact}): ${violation.help} — ${node.target.join(' ')}: ${
            node.failureSummary?.replace(/\s+/g, ' ') ?? ''
          }`,
      ),
    );
}

/** Collects what the page reports as errors: console errors and uncaught exceptions. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}
