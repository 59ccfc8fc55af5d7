import { userNameKey } from '@taco/protocol';

/** A character that may be part of a word: a mention must not sit inside one. */
const WORD = /[\p{L}\p{N}_]/u;

/**
 * Whether `body` mentions `myName`: `@` followed by the name (names may contain spaces),
 * compared case-insensitively, not preceded or followed by a word character.
 */
export function mentionsUser(body: string, myName: string): boolean {
  const name = userNameKey(myName);
  if (name === '') return false;
  const text = body.toLowerCase();
  const mention = `@${name}`;
  for (let at = text.indexOf(mention); at !== -1; at = text.indexOf(mention, at + 1)) {
    const before = at > 0 ? text.charAt(at - 1) : '';
    const after = text.charAt(at + mention.length);
    if (!WORD.test(before) && !WORD.test(after)) return true;
  }
  return false;
}
