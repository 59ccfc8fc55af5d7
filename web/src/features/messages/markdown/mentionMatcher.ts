// Mentions: the known names as a tree of their keys, walked from an `@`.

import { userNameKey } from '@taco/protocol';
import { endsWord, type Inline, type MentionContext, startsWord } from './syntax';

interface NameNode {
  next: Map<string, NameNode>;
  /** Set where a known name's key ends. */
  name?: string;
  key?: string;
}

/** The known names as a tree of their keys, so "@Ann Lee" is Ann Lee even when Ann is here too. */
export interface MentionMatcher {
  names: NameNode;
  /** The reader's key. */
  me: string;
}

/**
 * One character of a mention as compared: lower case, and the final sigma as any sigma (a key is
 * lowered as a whole, which turns a last Σ into ς; one character alone gives σ).
 */
function fold(char: string): string {
  return char.toLowerCase().replaceAll('ς', 'σ');
}

export function mentionMatcher({ names, me }: MentionContext): MentionMatcher {
  const root: NameNode = { next: new Map() };
  for (const name of [me, ...names]) {
    const key = userNameKey(name);
    if (key === '') continue;
    let node = root;
    for (const char of fold(key)) {
      let child = node.next.get(char);
      if (!child) {
        child = { next: new Map() };
        node.next.set(char, child);
      }
      node = child;
    }
    if (node.key === undefined) {
      node.key = key;
      node.name = name.trim();
    }
  }
  return { names: root, me: userNameKey(me) };
}

/**
 * The longest known name written after the `@` at `at` (case-insensitively) and not followed by
 * more of a word. The walk stops where no name goes on, at most at the next `@`: names cannot
 * hold one.
 */
export function matchMention(
  text: string,
  at: number,
  matcher: MentionMatcher,
): Extract<Inline, { type: 'mention' }> | null {
  if (!startsWord(text, at)) return null;
  let node: NameNode | undefined = matcher.names;
  let found: { end: number; node: NameNode } | null = null;
  let i = at + 1;
  while (node && i < text.length) {
    const code = text.codePointAt(i)!;
    const width = code > 0xffff ? 2 : 1;
    for (const char of fold(text.slice(i, i + width))) {
      node = node.next.get(char);
      if (!node) break;
    }
    i += width;
    if (node?.key !== undefined && endsWord(text, i)) found = { end: i, node };
  }
  if (!found) return null;
  const { end, node: named } = found;
  return {
    type: 'mention',
    name: named.name!,
    text: text.slice(at, end),
    self: named.key === matcher.me,
  };
}
