import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildNode, PluginCreator, Root, Rule } from 'postcss';

/**
 * The comment in `src/styles/bootstrap.scss` after which come Bootstrap's components and then its
 * utility classes: the rules there whose classes no source names are dropped.
 */
export const PURGE_MARKER = 'taco:components';

const SOURCE_FILE = /\.(tsx?|html)$/;
/** Files whose `var(--…)` may read a Bootstrap custom property. */
const STYLED_FILE = /\.(s?css|tsx?|html)$/;
const VAR_READ = /var\(\s*(--[\w-]+)/g;
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

/** Calls `read` with the text of every file under `paths` (files or folders) that `kind` matches, tests aside. */
function readSources(paths: readonly string[], kind: RegExp, read: (text: string) => void): void {
  const visit = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (kind.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) {
        read(readFileSync(full, 'utf8'));
      }
    }
  };
  for (const path of paths) {
    if (kind.test(path)) read(readFileSync(path, 'utf8'));
    else visit(path);
  }
}

/** Every word-like token in the client's sources: the class names they can possibly use. */
export function sourceTokens(paths: readonly string[]): Set<string> {
  const tokens = new Set<string>();
  readSources(paths, SOURCE_FILE, (text) => addTokens(tokens, text));
  return tokens;
}

/** The custom properties the client's own styles and components read with `var()`. */
export function sourceVarReads(paths: readonly string[]): Set<string> {
  const reads = new Set<string>();
  readSources(paths, STYLED_FILE, (text) => {
    for (const [, name = ''] of text.matchAll(VAR_READ)) reads.add(name);
  });
  return reads;
}

/**
 * Drops Bootstrap's `--bs-*` custom properties that nothing reads (neither the sources nor a
 * declaration that stays), then the rules left empty.
 */
function pruneCustomProperties(root: Root, sourceReads: ReadonlySet<string>): void {
  for (let removed = true; removed;) {
    const reads = new Set(sourceReads);
    root.walkDecls((decl) => {
      for (const [, name = ''] of decl.value.matchAll(VAR_READ)) reads.add(name);
    });
    removed = false;
    root.walkDecls(/^--bs-/, (decl) => {
      if (!reads.has(decl.prop)) {
        decl.remove();
        removed = true;
      }
    });
  }
  root.walkRules((rule) => {
    if (rule.nodes.length === 0) rule.remove();
  });
}

/** The classes a selector list needs: a rule stays when one of its selectors is fully used. */
function used(rule: Rule, tokens: ReadonlySet<string>): boolean {
  return rule.selectors.some((selector) =>
    [...selector.replace(NEGATION, '').matchAll(CLASS)].every(([, name = '']) =>
      tokens.has(name.replace(/\\/g, '')),
    ),
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
 * after the `taco:components` comment) whose classes no source file names, and the custom
 * properties nothing reads. Other files pass untouched.
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
      pruneCustomProperties(root, sourceVarReads(options?.sources ?? []));
    },
  };
};
purgeUtilities.postcss = true;
