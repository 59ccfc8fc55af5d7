import purgeCss from '@fullhuman/postcss-purgecss';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Plugin } from 'postcss';

/** The stylesheet PurgeCSS trims: Bootstrap's. The app's own stylesheets pass untouched. */
const BOOTSTRAP = /[\\/]styles[\\/]bootstrap\.scss(\?|$)/;
/**
 * Props of the components in `src/components/ui.tsx` that become classes: `variant="danger"` →
 * `btn-danger`, `alert-danger` or `text-danger` (Spinner); `size="sm"` → `btn-sm` (Bootstrap has
 * no `alert-` or `text-` size classes for the other two names to keep).
 */
const PROP_CLASSES = /\b(?:variant|size)=\{?["'`]([a-z-]+)["'`]/g;

/** PurgeCSS's default extractor (every word), plus the classes the `variant`/`size` props make. */
function extractClasses(source: string): string[] {
  const words: string[] = source.match(/[\w-]+/g) ?? [];
  for (const [, value] of source.matchAll(PROP_CLASSES)) {
    words.push(`btn-${value}`, `alert-${value}`, `text-${value}`);
  }
  return words;
}

/**
 * PurgeCSS on Bootstrap's compiled CSS (`src/styles/bootstrap.scss`): drops every rule whose
 * classes, elements and attributes no source under `root` (`src/`, `index.html`) names, and the
 * custom properties nothing reads (neither a rule that stays nor the app's own styles).
 */
export function purgeBootstrap(root: string): Plugin {
  // The custom properties the app's own styles and components read, tests aside.
  const files = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' });
  const styled = files.filter((f) => /\.(s?css|tsx?|html)$/.test(f) && !f.includes('.test.'));
  const text = styled.map((file) => readFileSync(join(root, 'src', file), 'utf8')).join('\n');
  const varReads = [...text.matchAll(/var\(\s*(--[\w-]+)/g)].map(([, name = '']) => name);
  const purge = purgeCss({
    content: [`${root}/src/**/*.{ts,tsx}`, `${root}/index.html`],
    skippedContentGlobs: [`${root}/src/**/*.test.{ts,tsx}`],
    defaultExtractor: extractClasses,
    variables: true,
    safelist: { variables: [...new Set(varReads)] },
  }) as Plugin;
  return {
    postcssPlugin: 'taco-purge-bootstrap',
    OnceExit(css, helpers) {
      if (BOOTSTRAP.test(css.source?.input.file ?? '')) return purge.OnceExit?.(css, helpers);
    },
  };
}
