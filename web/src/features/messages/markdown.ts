import { userNameKey } from '@taco/protocol';

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
 * It is written by hand because no maintained library fits the page's budget. This module is in
 * the first load of every page (the socket middleware reads mentions to notify), and `/` loads
 * 124.0 KB brotli of its 125 KB with it (122.5 KB with the parser it replaced, 1.5 KB smaller
 * but super-linear). markdown-it with linkify-it, its zero preset with only these rules, adds
 * 36.8 KB brotli (99.8 KB minified); micromark with GFM autolinks 12.6 KB.
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
const PUNCTUATION = /[\p{P}\p{S}]/u;
const NOT_SPACE = /\S/;
/** Characters a backslash makes literal. */
const ESCAPABLE = '\\`*_>@[]()#+-.!~|';
const LANGUAGE = /^[\w#+.-]{1,24}$/;

function isWord(ch: string | undefined): boolean {
  return ch !== undefined && WORD.test(ch);
}

function isSpace(ch: string | undefined): boolean {
  return ch === undefined || SPACE.test(ch);
}

function isPunctuation(ch: string | undefined): boolean {
  return ch !== undefined && PUNCTUATION.test(ch);
}

/**
 * Whether a mention or a link may start at `at`: not inside a word, so `mail@Bob` and
 * `xhttps://…` are neither. An underscore that starts the word is emphasis, as in `_@Ann_`.
 */
function startsWord(text: string, at: number): boolean {
  const before = text[at - 1];
  return !isWord(before) || (before === '_' && !isWord(text[at - 2]));
}

/** Whether a mention may end at `end`: the name is not the start of a longer word. */
function endsWord(text: string, end: number): boolean {
  const after = text[end];
  return !isWord(after) || (after === '_' && !isWord(text[end + 1]));
}

// Mentions ---------------------------------------------------------------------------------------

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
function matchMention(
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

// Links ------------------------------------------------------------------------------------------

/** Ends a link: white space and what cannot be in an address written in text. */
const LINK_STOP = /[\s<>"`]/u;
/** Punctuation that ends a sentence (or closes markup) rather than a link. */
const LINK_TRAILING = new Set(".,;:!?'*_~");
const OPENER_OF: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
const HOST_ASCII = /[A-Za-z0-9._-]/;
const IPV6 = /[0-9A-Fa-f:.]/;
const DIGIT = /[0-9]/;
const WWW_START = /www\.[\p{L}\p{N}-]+\.[\p{L}\p{N}]/iuy;

function isHostChar(ch: string): boolean {
  return ch.charCodeAt(0) >= 0x80 || HOST_ASCII.test(ch);
}

/** A link as found: as written, and its address. */
interface Link {
  written: string;
  href: string;
}

/**
 * Finds the links of one line: the link that starts at a position, if any, asked from left to
 * right. Each address is read once: the run of text it stands in (up to white space) is measured
 * once, a host once (an address that starts inside a host judged already is not tried), and the
 * brackets of a run are counted only for an address with a valid host and a path, which then
 * takes the run but for what ends the sentence. So a line takes time linear in its length.
 */
function linkFinder(text: string): (start: number) => Link | null {
  /** The run of non-space text last measured: [runStart, runEnd). */
  let runStart = 0;
  let runEnd = 0;
  /** A host up to here was judged already: an address starting inside it is not tried again. */
  let judgedUntil = 0;

  /** Measures the run of non-space text that `start` is in, unless it was already. */
  const measureRun = (start: number) => {
    if (start >= runStart && start < runEnd) return;
    runStart = start;
    runEnd = start;
    while (runEnd < text.length && !LINK_STOP.test(text[runEnd]!)) runEnd++;
  };

  /**
   * Where a link from `start` to the end of its run ends, without the punctuation that ends the
   * sentence and without closing brackets it did not open: `(see https://a.b/Taco_(food))`.
   */
  const trimmedEnd = (start: number): number => {
    const count: Record<string, number> = { '(': 0, '[': 0, '{': 0, ')': 0, ']': 0, '}': 0 };
    for (let i = start; i < runEnd; i++) {
      const ch = text[i]!;
      if (count[ch] !== undefined) count[ch]++;
    }
    let end = runEnd;
    for (;;) {
      const last = text[end - 1]!;
      const opener = OPENER_OF[last];
      if (LINK_TRAILING.has(last)) end--;
      else if (opener !== undefined && count[last]! > count[opener]!) {
        count[last]!--;
        end--;
      } else return end;
    }
  };

  return (start) => {
    if (start < judgedUntil || !startsWord(text, start)) return null;
    const scheme = text.slice(start, start + 8).toLowerCase();
    const www = scheme.startsWith('www.');
    let hostStart = start;
    if (scheme.startsWith('http://')) hostStart += 7;
    else if (scheme.startsWith('https://')) hostStart += 8;
    else if (!www) return null;
    if (www) {
      WWW_START.lastIndex = start;
      if (!WWW_START.test(text)) return null;
    }

    measureRun(start);
    // The host: a bracketed IPv6 address, or letters, digits, dots, hyphens and underscores.
    let hostEnd = hostStart;
    if (!www && text[hostStart] === '[') {
      hostEnd++;
      while (hostEnd < runEnd && IPV6.test(text[hostEnd]!)) hostEnd++;
      if (text[hostEnd] !== ']') return null;
      hostEnd++;
    } else {
      while (hostEnd < runEnd && isHostChar(text[hostEnd]!)) hostEnd++;
    }
    judgedUntil = hostEnd;
    if (hostEnd === hostStart) return null;
    let portEnd = hostEnd;
    if (text[hostEnd] === ':' && DIGIT.test(text[hostEnd + 1] ?? '')) {
      portEnd += 2;
      while (DIGIT.test(text[portEnd] ?? '')) portEnd++;
    }

    // After the host: a path, a query or a fragment, to the end of the run and without what
    // ends the sentence; or punctuation, which ends the address at the host (`www.a.b, or`).
    // Anything else is no part of an address: `http://bank.com@evil.com` is no link.
    const next = text[portEnd]!;
    let end = portEnd;
    if (portEnd < runEnd && (next === '/' || next === '?' || next === '#')) {
      if (!validHost(text.slice(hostStart, portEnd))) return null;
      end = trimmedEnd(start);
      if (end > portEnd) return found(start, end, www);
    } else if (portEnd < runEnd && !LINK_TRAILING.has(next) && OPENER_OF[next] === undefined) {
      return null;
    }
    // What ends the sentence may end the host too: `www.a.b.` is www.a.b.
    while (end > hostStart && LINK_TRAILING.has(text[end - 1]!)) end--;
    const host = text.slice(hostStart, end < hostEnd ? end : portEnd);
    return end > hostStart && validHost(host) ? found(start, end, www) : null;
  };

  function found(start: number, end: number, www: boolean): Link {
    const written = text.slice(start, end);
    return { written, href: www ? `https://${written}` : written };
  }
}

/** Whether a host (with its port) is one a browser opens: `new URL` reads only that much. */
function validHost(host: string): boolean {
  try {
    return new URL(`http://${host}/`).hostname !== '';
  } catch {
    return false;
  }
}

// Inline Markdown --------------------------------------------------------------------------------

/**
 * A node of a line while it is read: a doubly linked list, so that emphasis wraps the nodes
 * between its markers without copying the rest of the line.
 */
type Item = Text | Leaf | Run | Wrapped;

interface Linked {
  prev: Item | null;
  next: Item | null;
}

interface Text extends Linked {
  kind: 'text';
  text: string;
}

interface Leaf extends Linked {
  kind: 'node';
  node: Inline;
}

/**
 * A run of `*` or `_`, `count` of which are not used as emphasis yet; while it can still open or
 * close emphasis, it is also on the delimiter stack (`below`, `above`).
 */
interface Run extends Linked {
  kind: 'run';
  char: string;
  count: number;
  /** The run's length as written (CommonMark's "rule of 3" reads it). */
  length: number;
  canOpen: boolean;
  canClose: boolean;
  /** Order in the line, so that a bound on the stack survives removals. */
  index: number;
  below: Run | null;
  above: Run | null;
}

interface Wrapped extends Linked {
  /** Emphasis; or `plain`: markers too deep to be emphasis, shown as text with what they hold. */
  kind: 'em' | 'strong' | 'plain';
  children: Item[];
  /** How many emphasis levels deep it is, with what it holds. */
  depth: number;
}

/**
 * The backtick runs of a line, asked from left to right: for the backticks from `at` to the end
 * of their run, where that run ends and where the next run of exactly as many backticks starts
 * and ends (`null` when there is none). Each length keeps a cursor into its runs, so the answers
 * for a line take time linear in its runs.
 */
function backtickRuns(
  text: string,
): (at: number) => { openEnd: number; close: [number, number] | null } {
  const starts: number[] = [];
  const ends: number[] = [];
  const byLength = new Map<number, { runs: number[]; cursor: number }>();
  for (let i = text.indexOf('`'); i !== -1; i = text.indexOf('`', i)) {
    const start = i;
    while (text[i] === '`') i++;
    let same = byLength.get(i - start);
    if (!same) byLength.set(i - start, (same = { runs: [], cursor: 0 }));
    same.runs.push(starts.length);
    starts.push(start);
    ends.push(i);
  }
  /** The run the reader is at. */
  let current = 0;
  return (at) => {
    while (ends[current]! <= at) current++;
    const openEnd = ends[current]!;
    const same = byLength.get(openEnd - at);
    if (!same) return { openEnd, close: null };
    while (same.cursor < same.runs.length && same.runs[same.cursor]! <= current) same.cursor++;
    const next = same.runs[same.cursor];
    return { openEnd, close: next === undefined ? null : [starts[next]!, ends[next]!] };
  };
}

/** The character before `at`, a whole code point (`undefined` at the start). */
function charBefore(text: string, at: number): string | undefined {
  if (at === 0) return undefined;
  const code = text.charCodeAt(at - 1);
  if (code >= 0xdc00 && code <= 0xdfff && at >= 2) return text.slice(at - 2, at);
  return text[at - 1];
}

/** The character at `at`, a whole code point (`undefined` at the end). */
function charAt(text: string, at: number): string | undefined {
  const code = text.charCodeAt(at);
  if (code >= 0xd800 && code <= 0xdbff) return text.slice(at, at + 2);
  return text[at];
}

/** One line of text as inline nodes. */
export function parseInline(text: string, matcher: MentionMatcher): Inline[] {
  const head: Text = { kind: 'text', text: '', prev: null, next: null };
  let tail: Item = head;
  const append = (item: Item) => {
    item.prev = tail;
    tail.next = item;
    tail = item;
  };
  /** Where the text not yet appended starts. */
  let textStart = 0;
  const flush = (to: number) => {
    if (to > textStart)
      append({ kind: 'text', text: text.slice(textStart, to), prev: null, next: null });
  };
  const appendNode = (node: Inline, end: number) => {
    append({ kind: 'node', node, prev: null, next: null });
    textStart = end;
  };

  let firstRun: Run | null = null;
  let lastRun: Run | null = null;
  let runs = 0;
  const backticks = text.includes('`') ? backtickRuns(text) : null;
  const findLink = linkFinder(text);

  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '\\') {
      const next = text[i + 1];
      if (next !== undefined && ESCAPABLE.includes(next)) {
        // The backslash is dropped; the character after it starts the next text, as text.
        flush(i);
        textStart = i + 1;
        i += 2;
        continue;
      }
    } else if (ch === '`' && backticks) {
      const { openEnd, close } = backticks(i);
      const code = close ? text.slice(openEnd, close[0]) : '';
      if (close && NOT_SPACE.test(code)) {
        flush(i);
        const padded = code.length > 2 && code.startsWith(' ') && code.endsWith(' ');
        appendNode({ type: 'code', text: padded ? code.slice(1, -1) : code }, close[1]);
        i = close[1];
      } else {
        i = openEnd;
      }
      continue;
    } else if (ch === '@') {
      const mention = matchMention(text, i, matcher);
      if (mention) {
        flush(i);
        i += mention.text.length;
        appendNode(mention, i);
        continue;
      }
    } else if (ch === 'h' || ch === 'H' || ch === 'w' || ch === 'W') {
      const url = findLink(i);
      if (url) {
        flush(i);
        i += url.written.length;
        appendNode({ type: 'link', href: url.href, text: url.written }, i);
        continue;
      }
    } else if (ch === '*' || ch === '_') {
      let end = i + 1;
      while (text[end] === ch) end++;
      // CommonMark's flanking rules: whether the run can open or close emphasis.
      const before = charBefore(text, i);
      const after = charAt(text, end);
      const left =
        !isSpace(after) && (!isPunctuation(after) || isSpace(before) || isPunctuation(before));
      const right =
        !isSpace(before) && (!isPunctuation(before) || isSpace(after) || isPunctuation(after));
      const canOpen = ch === '*' ? left : left && (!right || isPunctuation(before));
      const canClose = ch === '*' ? right : right && (!left || isPunctuation(after));
      // Two or more underscores are what they say (`__init__`, a room `__proto__`): bold is `**`.
      const literal = ch === '_' && end - i > 1;
      if (!literal && (canOpen || canClose)) {
        flush(i);
        const run: Run = {
          kind: 'run',
          char: ch,
          count: end - i,
          length: end - i,
          canOpen,
          canClose,
          index: runs++,
          below: lastRun,
          above: null,
          prev: null,
          next: null,
        };
        append(run);
        if (lastRun) lastRun.above = run;
        else firstRun = run;
        lastRun = run;
        textStart = end;
      }
      i = end;
      continue;
    }
    i++;
  }
  flush(text.length);
  if (firstRun) matchEmphasis(firstRun);
  return toInlines(head.next);
}

/**
 * CommonMark's "process emphasis": each closing run, from left to right, takes the nearest run
 * below it that can open it. For each kind of closer, the stack below the last failed search is
 * not searched again, so a line costs time linear in its runs.
 */
function matchEmphasis(first: Run): void {
  /** Per kind of closer (character, length modulo 3, can open): runs searched already. */
  const searchedTo = new Int32Array(12).fill(-1);
  const remove = (run: Run) => {
    if (run.below) run.below.above = run.above;
    if (run.above) run.above.below = run.below;
  };
  let closer: Run | null = first;
  while (closer) {
    if (!closer.canClose) {
      closer = closer.above;
      continue;
    }
    const kind = (closer.char === '*' ? 0 : 6) + (closer.length % 3) * 2 + (closer.canOpen ? 1 : 0);
    const bottom = searchedTo[kind]!;
    let opener = closer.below;
    while (opener && opener.index > bottom) {
      if (opener.char === closer.char && opener.canOpen) {
        const oddMatch =
          (closer.canOpen || opener.canClose) &&
          closer.length % 3 !== 0 &&
          (opener.length + closer.length) % 3 === 0;
        if (!oddMatch) break;
      }
      opener = opener.below;
    }
    if (opener && opener.index > bottom) {
      // `***x***` is bold italic, the italic inside.
      const both = opener.count === 3 && closer.count === 3;
      const use = opener.count >= 2 && closer.count >= 2 && !both ? 2 : 1;
      opener.count -= use;
      closer.count -= use;
      wrap(opener, closer, use === 2 ? 'strong' : 'em', closer.char.repeat(use));
      // The runs between can no longer match.
      opener.above = closer;
      closer.below = opener;
      if (opener.count === 0) remove(opener);
      if (closer.count === 0) {
        remove(closer);
        closer = closer.above;
      }
    } else {
      searchedTo[kind] = closer.below ? closer.below.index : -1;
      if (!closer.canOpen) remove(closer);
      closer = closer.above;
    }
  }
}

function depthOf(item: Item): number {
  return item.kind === 'em' || item.kind === 'strong' || item.kind === 'plain' ? item.depth : 0;
}

/** Puts the items between `open` and `close` into one emphasis item (or plain text if too deep). */
function wrap(open: Run, close: Run, kind: 'em' | 'strong', marker: string): void {
  const children: Item[] = [];
  let depth = 0;
  for (let item = open.next; item && item !== close; item = item.next) {
    children.push(item);
    depth = Math.max(depth, depthOf(item));
  }
  let wrapped: Wrapped;
  if (depth < MAX_DEPTH) {
    wrapped = { kind, children, depth: depth + 1, prev: open, next: close };
  } else {
    const markerText = (): Text => ({ kind: 'text', text: marker, prev: null, next: null });
    children.unshift(markerText());
    children.push(markerText());
    wrapped = { kind: 'plain', children, depth, prev: open, next: close };
  }
  open.next = wrapped;
  close.prev = wrapped;
}

/** The items from `first` on as inline nodes, adjacent text joined. */
function toInlines(first: Item | null): Inline[] {
  const items: Item[] = [];
  for (let item = first; item; item = item.next) items.push(item);
  return inlinesOf(items);
}

function inlinesOf(items: readonly Item[]): Inline[] {
  const out: Inline[] = [];
  let text = '';
  const flush = () => {
    if (text !== '') out.push({ type: 'text', text });
    text = '';
  };
  // Plain items nest arbitrarily deep: walked with a stack, not by recursion.
  const stack: { items: readonly Item[]; at: number }[] = [{ items, at: 0 }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const item = top.items[top.at++];
    if (!item) {
      stack.pop();
      continue;
    }
    switch (item.kind) {
      case 'text':
        text += item.text;
        break;
      case 'run':
        if (item.count > 0) text += item.char.repeat(item.count);
        break;
      case 'node':
        flush();
        out.push(item.node);
        break;
      case 'em':
      case 'strong':
        flush();
        out.push({ type: item.kind, children: inlinesOf(item.children) });
        break;
      case 'plain':
        stack.push({ items: item.children, at: 0 });
        break;
    }
  }
  flush();
  return out;
}

// Blocks -----------------------------------------------------------------------------------------

/** After up to three spaces, `marker` starts the line: what follows it, or `null`. */
function afterMarker(line: string, marker: string): string | null {
  let i = 0;
  while (i < 3 && line[i] === ' ') i++;
  return line.startsWith(marker, i) ? line.slice(i + marker.length) : null;
}

/** A line that closes a fence (it ends with ```): what comes before the backticks. */
function fenceClose(line: string): string | null {
  const trimmed = line.trimEnd();
  return trimmed.endsWith('```') ? trimmed.slice(0, -3) : null;
}

/** A quoted line (`> text`): the text, or `null`. */
function quoted(line: string): string | null {
  const rest = afterMarker(line, '>');
  return rest === null ? null : rest.startsWith(' ') ? rest.slice(1) : rest;
}

function parseLines(lines: readonly string[], matcher: MentionMatcher, depth: number): Block[] {
  const blocks: Block[] = [];
  let text: string[] = [];
  const endText = () => {
    let from = 0;
    let to = text.length;
    while (from < to && text[from]!.trim() === '') from++;
    while (to > from && text[to - 1]!.trim() === '') to--;
    if (from < to) {
      const inlines: Inline[][] = [];
      for (let n = from; n < to; n++) inlines.push(parseInline(text[n]!, matcher));
      blocks.push({ type: 'text', lines: inlines });
    }
    text = [];
  };
  // For each line, the first line from there on that could close a fence: computed once, so an
  // unclosed fence does not make every later line search to the end again.
  let closes: Int32Array | null = null;
  const nextClose = (from: number): number => {
    if (!closes) {
      closes = new Int32Array(lines.length + 1);
      closes[lines.length] = lines.length;
      for (let n = lines.length - 1; n >= 0; n--) {
        closes[n] = fenceClose(lines[n]!) === null ? closes[n + 1]! : n;
      }
    }
    return closes[from]!;
  };

  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const rest = afterMarker(line, '```');
    if (rest !== null) {
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
      const close = nextClose(i + 1);
      if (close < lines.length) {
        endText();
        const first = rest.trim();
        const language = LANGUAGE.test(first) ? first : '';
        const body = lines.slice(i + 1, close);
        if (first !== '' && language === '') body.unshift(rest);
        const tail = fenceClose(lines[close]!) ?? '';
        if (tail.trim() !== '') body.push(tail);
        blocks.push({ type: 'code', text: body.join('\n'), language });
        i = close + 1;
        continue;
      }
    }
    if (depth < MAX_DEPTH && quoted(line) !== null) {
      endText();
      const inner: string[] = [];
      for (let q = quoted(line); q !== null; q = i < lines.length ? quoted(lines[i]!) : null) {
        inner.push(q);
        i++;
      }
      const nested = parseLines(inner, matcher, depth + 1);
      if (nested.length > 0) blocks.push({ type: 'quote', blocks: nested });
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
