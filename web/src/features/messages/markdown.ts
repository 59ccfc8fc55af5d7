import { userNameKey } from '@taco/protocol';

/**
 * The Markdown people write in chats, parsed into a tree that the feed renders as React
 * elements: `**bold**`, `*italic*` and `_italic_`, `` `code` ``, fenced code blocks, `>` quotes,
 * http(s) and `www.` links, and `@mentions` of known participants. Nothing else is markup: no
 * HTML, no images, no `[text](url)` links, so a message can never inject markup or link to a
 * `javascript:` or `data:` address. Inline markup never spans lines.
 */

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
const MAX_DEPTH = 4;
const WORD = /[\p{L}\p{N}_]/u;
const SPACE = /\s/u;
/** Characters a backslash makes literal. */
const ESCAPABLE = '\\`*_>@[]()#+-.!~|';
const FENCE = /^ {0,3}```(.*)$/;
const FENCE_END = /^(.*?)```\s*$/;
const LANGUAGE = /^[\w#+.-]{1,24}$/;
const QUOTE = /^ {0,3}> ?(.*)$/;
const URL_START = /^(?:https?:\/\/[^\s/?#<>"`]|www\.[\p{L}\p{N}-]+\.[\p{L}\p{N}])/iu;
const URL_RUN = /^[^\s<>"`]+/u;
/** Punctuation that ends a sentence (or closes markup) rather than a link. */
const URL_TRAILING = /[.,;:!?'*_~]$/;
const CLOSERS: Record<string, string> = { ')': '(', ']': '[', '}': '{' };

function isWord(ch: string | undefined): boolean {
  return ch !== undefined && WORD.test(ch);
}

function isSpace(ch: string | undefined): boolean {
  return ch === undefined || SPACE.test(ch);
}

function count(text: string, ch: string): number {
  let n = 0;
  for (const c of text) if (c === ch) n++;
  return n;
}

/** A link's address as written, without what ends the sentence around it; `null`: not a link. */
function matchUrl(text: string, start: number): { written: string; href: string } | null {
  const rest = text.slice(start);
  if (!URL_START.test(rest)) return null;
  let written = URL_RUN.exec(rest)?.[0] ?? '';
  for (;;) {
    const last = written.at(-1);
    if (last === undefined) return null;
    const opener = CLOSERS[last];
    if (URL_TRAILING.test(last) || (opener && count(written, last) > count(written, opener))) {
      written = written.slice(0, -1);
    } else {
      break;
    }
  }
  const href = /^www\./i.test(written) ? `https://${written}` : written;
  try {
    const { protocol } = new URL(href);
    return protocol === 'http:' || protocol === 'https:' ? { written, href } : null;
  } catch {
    return null;
  }
}

/** Known names, longest first, so that "@Ann Lee" is Ann Lee even when Ann is here too. */
export interface MentionMatcher {
  keys: { key: string; name: string }[];
  me: string;
}

export function mentionMatcher({ names, me }: MentionContext): MentionMatcher {
  const byKey = new Map<string, string>();
  for (const name of [me, ...names]) {
    const key = userNameKey(name);
    if (key !== '' && !byKey.has(key)) byKey.set(key, name.trim());
  }
  const keys = [...byKey].map(([key, name]) => ({ key, name }));
  keys.sort((a, b) => b.key.length - a.key.length);
  return { keys, me: userNameKey(me) };
}

function matchMention(
  text: string,
  at: number,
  matcher: MentionMatcher,
): Extract<Inline, { type: 'mention' }> | null {
  if (isWord(text[at - 1])) return null;
  for (const { key, name } of matcher.keys) {
    const end = at + 1 + key.length;
    if (text.slice(at + 1, end).toLowerCase() === key && !isWord(text[end])) {
      return { type: 'mention', name, text: text.slice(at, end), self: key === matcher.me };
    }
  }
  return null;
}

/** Where a `**` or single `*`/`_` emphasis opened at `start` closes; -1 when it does not. */
function findCloser(text: string, start: number, delimiter: string): number {
  const width = delimiter.length;
  const from = start + width;
  if (isSpace(text[from]) || text[from] === delimiter[0]) {
    if (width === 1 || text[from] !== '*' || text[from + 1] === '*') return -1;
  }
  if (delimiter === '_' && isWord(text[start - 1])) return -1;
  for (let j = text.indexOf(delimiter, from + 1); j !== -1; j = text.indexOf(delimiter, j + 1)) {
    let end = j;
    // The closing `**` of `***x***` is the run's last two.
    if (width === 2) while (text[end + 2] === '*') end++;
    if (isSpace(text[end - 1])) continue;
    if (width === 1 && text[end + 1] === delimiter) {
      j++;
      continue;
    }
    if (delimiter === '_' && isWord(text[end + 1])) continue;
    return end;
  }
  return -1;
}

/** One line of text as inline nodes. */
export function parseInline(text: string, matcher: MentionMatcher, depth = 0): Inline[] {
  const out: Inline[] = [];
  let buffer = '';
  const flush = () => {
    if (buffer !== '') out.push({ type: 'text', text: buffer });
    buffer = '';
  };
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    const next = text[i + 1];
    if (ch === '\\' && next !== undefined && ESCAPABLE.includes(next)) {
      buffer += next;
      i += 2;
      continue;
    }
    if (ch === '`') {
      let run = 1;
      while (text[i + run] === '`') run++;
      const fence = '`'.repeat(run);
      let close = text.indexOf(fence, i + run);
      while (close !== -1 && text[close + run] === '`') {
        let skip = close;
        while (text[skip] === '`') skip++;
        close = text.indexOf(fence, skip);
      }
      const code = close === -1 ? '' : text.slice(i + run, close);
      if (code.trim() !== '') {
        flush();
        const padded = code.length > 2 && code.startsWith(' ') && code.endsWith(' ');
        out.push({ type: 'code', text: padded ? code.slice(1, -1) : code });
        i = close + run;
      } else {
        buffer += fence;
        i += run;
      }
      continue;
    }
    if (ch === '@') {
      const mention = matchMention(text, i, matcher);
      if (mention) {
        flush();
        out.push(mention);
        i += mention.text.length;
        continue;
      }
    }
    if ((ch === 'h' || ch === 'H' || ch === 'w' || ch === 'W') && !isWord(text[i - 1])) {
      const url = matchUrl(text, i);
      if (url) {
        flush();
        out.push({ type: 'link', href: url.href, text: url.written });
        i += url.written.length;
        continue;
      }
    }
    if ((ch === '*' || ch === '_') && depth < MAX_DEPTH) {
      const delimiter = ch === '*' && next === '*' ? '**' : ch;
      const close = findCloser(text, i, delimiter);
      if (close !== -1) {
        flush();
        const children = parseInline(text.slice(i + delimiter.length, close), matcher, depth + 1);
        out.push(delimiter === '**' ? { type: 'strong', children } : { type: 'em', children });
        i = close + delimiter.length;
        continue;
      }
      if (delimiter === '**') {
        buffer += '**';
        i += 2;
        continue;
      }
    }
    buffer += ch;
    i++;
  }
  flush();
  return out;
}

function textBlock(lines: string[], matcher: MentionMatcher): Block | null {
  while (lines.length > 0 && lines[0]!.trim() === '') lines.shift();
  while (lines.length > 0 && lines.at(-1)!.trim() === '') lines.pop();
  if (lines.length === 0) return null;
  return { type: 'text', lines: lines.map((line) => parseInline(line, matcher)) };
}

function parseLines(lines: string[], matcher: MentionMatcher, depth: number): Block[] {
  const blocks: Block[] = [];
  let text: string[] = [];
  const endText = () => {
    const block = textBlock(text, matcher);
    if (block) blocks.push(block);
    text = [];
  };
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const fence = FENCE.exec(line);
    if (fence) {
      const rest = fence[1]!;
      const sameLine = rest.indexOf('```');
      if (sameLine > 0) {
        // ```code``` on one line
        endText();
        blocks.push({ type: 'code', text: rest.slice(0, sameLine), language: '' });
        const after = rest.slice(sameLine + 3);
        if (after.trim() !== '') text.push(after);
        i++;
        continue;
      }
      let close = i + 1;
      while (close < lines.length && !FENCE_END.test(lines[close]!)) close++;
      if (close < lines.length) {
        endText();
        const first = rest.trim();
        const language = LANGUAGE.test(first) ? first : '';
        const body = lines.slice(i + 1, close);
        if (first !== '' && language === '') body.unshift(rest);
        const tail = FENCE_END.exec(lines[close]!)?.[1] ?? '';
        if (tail.trim() !== '') body.push(tail);
        blocks.push({ type: 'code', text: body.join('\n'), language });
        i = close + 1;
        continue;
      }
    }
    if (depth < MAX_DEPTH && QUOTE.test(line)) {
      endText();
      const quoted: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i]!)) {
        quoted.push(QUOTE.exec(lines[i]!)![1]!);
        i++;
      }
      const inner = parseLines(quoted, matcher, depth + 1);
      if (inner.length > 0) blocks.push({ type: 'quote', blocks: inner });
      continue;
    }
    text.push(line);
    i++;
  }
  endText();
  return blocks;
}

/** A message body as blocks of inline nodes. */
export function parseMessage(body: string, matcher: MentionMatcher): Block[] {
  return parseLines(body.replace(/\r\n?/g, '\n').split('\n'), matcher, 0);
}

/** Every inline node of a parsed message, code blocks excepted. */
export function* inlineNodes(blocks: readonly Block[]): Generator<Inline> {
  function* walk(nodes: readonly Inline[]): Generator<Inline> {
    for (const node of nodes) {
      yield node;
      if (node.type === 'strong' || node.type === 'em') yield* walk(node.children);
    }
  }
  for (const block of blocks) {
    if (block.type === 'text') for (const line of block.lines) yield* walk(line);
    else if (block.type === 'quote') yield* inlineNodes(block.blocks);
  }
}
