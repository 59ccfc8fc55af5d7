import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildNode, PluginCreator, Rule } from 'postcss';

/**
 * The comment in `src/styles/bootstrap.scss` after which come Bootstrap's components and then its
 * utility classes: the rules there whose classes no source names are dropped.
 */
export const PURGE_MARKER = 'taco:components';

const SOURCE_FILE = /\.(tsx?|html)$/;
const TOKEN = /[A-Za-z][\w-]*/g;
const CLASS = /\.((?:\\.|[\w-])+)/g;
/** `:not(...)`: the classes in it need not be used for the rule to apply. */
const NEGATION = /:not\([^)]*\)/g;
/**
 * Props of the components in `src/components/ui.tsx` that become classes: `variant="danger"` →
 * `btn-danger`, `alert-danger` or `text-danger` (Spinner); `size="sm"` → `btn-sm`.
 */
const PROP_CLASSES = /\b(variant|size)=\{?["'`]([a-z-]+)["'`]/g;
const PROP_PREFIXES: Record<string, readonly string[]> = {
  variant: ['btn', 'alert', 'text'],
  size: ['btn'],
};

function addTokens(tokens: Set<string>, source: string): void {
  for (const token of source.match(TOKEN) ?? []) tokens.add(token);
  for (const [, prop = '', value] of source.matchAll(PROP_CLASSES)) {
    for (const prefix of PROP_PREFIXES[prop] ?? []) tokens.add(`${prefix}-${value}`);
  }
}

/** Every word-like token in the client's sources: the class names they can possibly use. */
export function sourceTokens(paths: readonly string[]): Set<string> {
  const tokens = new Set<string>();
  const visit = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (SOURCE_FILE.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) {
        addTokens(tokens, readFileSync(full, 'utf8'));
      }
    }
  };
  for (const path of paths) {
    if (SOURCE_FILE.test(path)) addTokens(tokens, readFileSync(path, 'utf8'));
    else visit(path);
  }
  return tokens;
}

/** The classes a selector list needs: a rule stays when one of its selectors is fully used. */
function used(rule: Rule, tokens: ReadonlySet<string>): boolean {
  return rule.selectors.some((selector) =>
    [...selector.replace(NEGATION, '').matchAll(CLASS)].every(([, name = '']) => tokens.has(name.replace(/\\/g, ''))),
  );
}

/** Removes the unused rules among `nodes`, and at-rules (`@media`) left empty. */
function prune(nodes: readonly ChildNode[], tokens: ReadonlySet<string>): void {
  for (const node of nodes) {
    if (node.type === 'rule') {
      if (!used(node, tokens)) node.remove();
    } else if (node.type === 'atrule' && node.nodes) {
      prune([...node.nodes], tokens);
      if (node.nodes.length === 0) node.remove();
    }
  }
}

/**
 * A PostCSS plugin for Bootstrap's compiled CSS: drops every component and utility rule (those
 * after the `taco:components` comment) whose classes no source file names. Other files pass
 * untouched.
 */
export const purgeUtilities: PluginCreator<{ sources: readonly string[] }> = (options) => {
  return {
    postcssPlugin: 'taco-purge-utilities',
    Once(root) {
      const marker = root.nodes.findIndex(
        (node) => node.type === 'comment' && node.text.includes(PURGE_MARKER),
      );
      if (marker < 0) return;
      const tokens = sourceTokens(options?.sources ?? []);
      const utilities = root.nodes.slice(marker + 1);
      root.nodes[marker]?.remove();
      prune(utilities, tokens);
    },
  };
};
purgeUtilities.postcss = true;
