/**
 * The Markdown people write in chats, parsed into a tree that the feed renders as React
 * elements: `**bold**`, `*italic*` and `_italic_`, `` `code` ``, fenced code blocks, `>` quotes,
 * http(s) and `www.` links, and `@mentions` of known participants. A run of two or more
 * underscores is text (`__init__` stays as written). Nothing else is markup: no
 * HTML, no images, no `[text](url)` links, so a message can never inject markup or link to a
 * `javascript:` or `data:` address. Inline markup never spans lines.
 *
 * Every step is linear in the message's length, whatever it holds (markdown.growth.test.ts
 * proves it on hostile inputs): each line is read once from left to right; emphasis is matched
 * with CommonMark's delimiter stack; a code span's closing backticks, a link's end and its
 * brackets are found from positions computed once per line; a mention is a walk down a tree of
 * the known names.
 *
 * It is written by hand because no maintained library fits the page's budget. The parser is in
 * the first load of every page (the socket middleware reads mentions to notify), and `/` loads
 * 124.0 KB brotli of its 125 KB with it (122.5 KB with the parser it replaced, 1.5 KB smaller
 * but super-linear). markdown-it with linkify-it, its zero preset with only these rules, adds
 * 36.8 KB brotli (99.8 KB minified); micromark with GFM autolinks 12.6 KB.
 *
 * Its parts: `syntax.ts` (the tree and character classes), `inline.ts` (one line: escapes, code
 * spans, mentions, links, emphasis runs), `emphasis.ts` (CommonMark's delimiter stack),
 * `links.ts`, `mentionMatcher.ts` and `blocks.ts` (fences, quotes, text lines).
 */

export { inlineNodes, parseMessage } from './blocks';
export { parseInline } from './inline';
export { type MentionMatcher, mentionMatcher } from './mentionMatcher';
export type { Block, Inline, MentionContext } from './syntax';
