import { codePointLength, isSameUserName, USER_NAME_MAX_LENGTH, userNameKey } from '@taco/protocol';

/** Names the completion list offers at most. */
export const MENTION_CANDIDATES_MAX = 8;

/** A character that may be part of a word: an `@` inside a word (an address) starts no mention. */
const WORD = /[\p{L}\p{N}_]/u;

/** The `@mention` being typed before the caret: where its `@` is and what follows it. */
export interface MentionQuery {
  start: number;
  query: string;
}

/** The mention being typed at `caret` in `text`, if any. */
export function mentionAt(text: string, caret: number): MentionQuery | null {
  const before = text.slice(0, caret);
  const start = before.lastIndexOf('@');
  if (start === -1 || WORD.test(before.charAt(start - 1))) return null;
  const query = before.slice(start + 1);
  if (query.includes('\n') || codePointLength(query) > USER_NAME_MAX_LENGTH) return null;
  return { start, query };
}

/** The present participants (not the user) whose name starts with the query, alphabetical. */
export function mentionCandidates(names: readonly string[], query: string, me: string): string[] {
  const prefix = query.toLowerCase();
  return names
    .filter((name) => !isSameUserName(name, me) && userNameKey(name).startsWith(prefix))
    .sort((a, b) => a.localeCompare(b, undefined, { sensitivity: 'base' }))
    .slice(0, MENTION_CANDIDATES_MAX);
}

/** `text` with the mention at `mention` completed to `name` and a space; the caret after it. */
export function completeMention(
  text: string,
  caret: number,
  mention: MentionQuery,
  name: string,
): { text: string; caret: number } {
  const inserted = `@${name} `;
  const rest = text.slice(caret).replace(/^ /, '');
  return {
    text: text.slice(0, mention.start) + inserted + rest,
    caret: mention.start + inserted.length,
  };
}
