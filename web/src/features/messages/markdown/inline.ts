// One line of a message: escapes, code spans, mentions, links and emphasis runs, left to right.

import { type Item, matchEmphasis, type Run, type Text, toInlines } from './emphasis';
import { linkFinder } from './links';
import { matchMention, type MentionMatcher } from './mentionMatcher';
import { type Inline, isPunctuation, isSpace } from './syntax';

const NOT_SPACE = /\S/;
/** Characters a backslash makes literal. */
const ESCAPABLE = '\\`*_>@[]()#+-.!~|';

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
