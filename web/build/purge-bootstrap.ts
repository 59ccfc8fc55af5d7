import purgeCss from '@fullhuman/postcss-purgecss';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Plugin } from 'postcss';

/** The stylesheet PurgeCSS trims: Bootstrap's. The app's own stylesheets pass untouched. */
const BOOTSTRAP = /[\\/]styles[\\/]bootstrap\.scss(\?|$)/;
const TEST_FILE = /\.test\.tsx?$/;
/** Files whose `var(--…)` may read a Bootstrap custom property. */
const STYLED_FILE = /\.(s?css|tsx?|html)$/;
const VAR_READ = /var\(\s*(--[\w-]+)/g;
/**
 * Props of the components in `src/components/ui.tsx` that become classes: `variant="danger"` →
 * `btn-danger`, `alert-danger` or `text-danger` (Spinner); `size="sm"` → `btn-sm`.
 */
const PROP_CLASSES = /\b(variant|size)=\{?["'`]([a-z-]+)["'`]/g;
const PROP_PREFIXES: Record<string, readonly string[]> = {
  variant: ['btn', 'alert', 'text'],
  size: ['btn'],
};

/** PurgeCSS's default extractor (every word), plus the classes the `variant`/`size` props make. */
export function extractClasses(source: string): string[] {
  const words: string[] = source.match(/[\w-]+/g) ?? [];
  for (const [, prop = '', value] of source.matchAll(PROP_CLASSES)) {
    for (const prefix of PROP_PREFIXES[prop] ?? []) words.push(`${prefix}-${value}`);
  }
  return words;
}

/** The custom properties the client's own styles and components read with `var()`, tests aside. */
export function sourceVarReads(dir: string): string[] {
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' });
  const styled = files.filter((file) => STYLED_FILE.test(file) && !TEST_FILE.test(file));
  const text = styled.map((file) => readFileSync(join(dir, file), 'utf8')).join('\n');
  return [...new Set([...text.matchAll(VAR_READ)].map(([, name = '']) => name))];
}

/**
 * PurgeCSS on Bootstrap's compiled CSS (`src/styles/bootstrap.scss`): drops every rule whose
 * classes, elements and attributes no source under `root` (`src/`, `index.html`) names, and the
 * custom properties nothing reads (neither a rule that stays nor the app's own styles).
 */
export function purgeBootstrap(root: string): Plugin {
  const purge = purgeCss({
    content: [`${root}/src/**/*.{ts,tsx}`, `${root}/index.html`],
    skippedContentGlobs: [`${root}/src/**/*.test.{ts,tsx}`],
    defaultExtractor: extractClasses,
    variables: true,
    safelist: { variables: sourceVarReads(join(root, 'src')) },
  }) as Plugin;
  return {
    postcssPlugin: 'taco-purge-bootstrap',
    OnceExit(css, helpers) {
      if (BOOTSTRAP.test(css.source?.input.file ?? '')) return purge.OnceExit?.(css, helpers);
    },
  };
}
