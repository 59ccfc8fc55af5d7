/** The tree a message parses into, and the character classes every part of the parser reads. */

export type Inline =
  | { type: 'text'; text: string }
  | { type: 'strong'; children: Inline[] }
  | { type: 'em'; children: Inline[] }
  | { type: 'code'; text: string }
  | { type: 'link'; href: string; text: string }
  /** `text` is the mention as written (with the `@`); `self`: it names the reader. */
  | { type: 'mention'; name: string; text: string; self: boolean };

export type Block =
  /** Lines of text; the line breaks are kept. */
  | { type: 'text'; lines: Inline[][] }
  | { type: 'code'; text: string; language: string }
  | { type: 'quote'; blocks: Block[] };

/** Who can be mentioned, and who reads. */
export interface MentionContext {
  /** Known participants' names (present or not); `me` counts too. */
  names: readonly string[];
  /** The reader's name, whose mentions are told apart. */
  me: string;
}

/** How deep quotes and emphasis nest before the rest is plain text. */
export const MAX_DEPTH = 4;
const WORD = /[\p{L}\p{N}_]/u;
const SPACE = /\s/u;
const PUNCTUATION = /[\p{P}\p{S}]/u;

export function isWord(ch: string | undefined): boolean {
  return ch !== undefined && WORD.test(ch);
}

export function isSpace(ch: string | undefined): boolean {
  return ch === undefined || SPACE.test(ch);
}

export function isPunctuation(ch: string | undefined): boolean {
  return ch !== undefined && PUNCTUATION.test(ch);
}

/**
 * Whether a mention or a link may start at `at`: not inside a word, so `mail@Bob` and
 * `xhttps://…` are neither. An underscore that starts the word is emphasis, as in `_@Ann_`.
 */
export function startsWord(text: string, at: number): boolean {
  const before = text[at - 1];
  return !isWord(before) || (before === '_' && !isWord(text[at - 2]));
}

/** Whether a mention may end at `end`: the name is not the start of a longer word. */
export function endsWord(text: string, end: number): boolean {
  const after = text[end];
  return !isWord(after) || (after === '_' && !isWord(text[end + 1]));
}
