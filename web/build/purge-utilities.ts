import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildNode, PluginCreator, Rule } from 'postcss';

/** The comment in `src/styles/bootstrap.scss` after which only utility classes follow. */
export const UTILITIES_MARKER = 'taco:utilities';

const SOURCE_FILE = /\.(tsx?|html)$/;
const TOKEN = /[A-Za-z][\w-]*/g;
const CLASS = /\.((?:\\.|[\w-])+)/g;
/** react-bootstrap props that become utility classes: `bg="dark"` → `bg-dark`, `variant="secondary"` (Spinner) → `text-secondary`. */
const PROP_CLASSES = /\b(bg|text|variant)=\{?["'`]([a-z-]+)["'`]/g;

function addTokens(tokens: Set<string>, source: string): void {
  for (const token of source.match(TOKEN) ?? []) tokens.add(token);
  for (const [, prop, value] of source.matchAll(PROP_CLASSES)) {
    tokens.add(`${prop === 'bg' ? 'bg' : 'text'}-${value}`);
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
    [...selector.matchAll(CLASS)].every(([, name = '']) => tokens.has(name.replace(/\\/g, ''))),
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
 * A PostCSS plugin for Bootstrap's compiled CSS: drops every utility rule (those after the
 * `taco:utilities` comment) whose classes no source file names. Other files pass untouched.
 */
export const purgeUtilities: PluginCreator<{ sources: readonly string[] }> = (options) => {
  return {
    postcssPlugin: 'taco-purge-utilities',
    Once(root) {
      const marker = root.nodes.findIndex(
        (node) => node.type === 'comment' && node.text.includes(UTILITIES_MARKER),
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
