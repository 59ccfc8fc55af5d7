// A message's blocks: fenced code, `>` quotes and lines of text.

import { parseInline } from './inline';
import type { MentionMatcher } from './mentionMatcher';
import { type Block, type Inline, MAX_DEPTH } from './syntax';

const LANGUAGE = /^[\w#+.-]{1,24}$/;

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
