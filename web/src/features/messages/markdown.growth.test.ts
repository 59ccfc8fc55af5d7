import { LINEAR_RATIO_LIMIT, measureGrowth, randomMix, repeatTo } from '@taco/protocol/testing';
import { mentionMatcher, parseMessage } from './markdown';

/**
 * Every message must render in time linear in its length, whatever it holds: each hostile shape
 * below is parsed at 4,096 characters (a whole message) and at 8× that, and the time may grow
 * about 8× (linear), never 64× (quadratic); see @taco/protocol/testing for how it is timed.
 */

/** 500 participants, so that mention matching cannot cost a loop over the names per `@`. */
const NAMES = Array.from({ length: 500 }, (_, i) => `Ann${i.toString(36)} Lee`).concat([
  'Ann',
  'Bob',
]);
const matcher = mentionMatcher({ names: NAMES, me: 'Alice' });

/** Pieces of Markdown, links and mentions, mixed at random into long bodies. */
const PIECES = [
  '*', '**', '***', '_', '__', '`', '``', '```', '\\', '\\*', '>', '> ', '@', '@Ann', '@Ann Lee',
  '@Ann1 Lee', 'http://', 'https://a.b/', 'http://[', 'www.', 'www.a.b', '(', ')', '[', ']', '{',
  '}', '.', ',', '?', '#', '!', ':', ' ', ' ', 'a', 'word', '\n', '\n> ', '\n```\n', '\n```ts\n',
  'é', '😀', '\u0301',
]; // prettier-ignore

const repeat =
  (unit: string, prefix = '', suffix = '') =>
  (size: number) =>
    prefix + repeatTo(unit, size) + suffix;

const CASES: [string, (size: number) => string][] = [
  // Links: brackets and parentheses after an address, and many tries inside one word.
  ['http://[ then )s', repeat(')', 'http://[')],
  ['www. then ]s', repeat(']', 'www.a.b')],
  ['http://a.b/ then )s', repeat(')', 'http://a.b/')],
  ['( then http://a.b, nested', repeat('(http://a.b/')],
  ['http://[( repeated', repeat('http://[(')],
  ['http://a.b) repeated, then )s', (size) => repeatTo('http://a.b)', size / 2) + ')'.repeat(size / 2)],
  ['www.a- repeated, then |', repeat('www.a-', '', '|')],
  ['www.a.b, repeated (links ended by punctuation)', repeat('www.a.b,')],
  ['http://a.b.? repeated (hosts cut by punctuation)', repeat('http://a.b.?(')],
  ['h h h', repeat('h ')],
  ['a long URL of . ? #', repeat('a.?#', 'http://a.b/')],
  ['a long host', repeat('a.', 'http://', '/')],
  ['a long www host of hyphens', repeat('a-', 'www.', '.b')],
  ['long URLs, trailing dots', repeat('http://a.b/c.. ')],
  // Brackets and parentheses alone.
  ['(s', repeat('(')],
  ['[s', repeat('[')],
  [')s', repeat(')')],
  // Emphasis: runs, unclosed and unbalanced openers, nesting.
  ['*s', repeat('*')],
  ['_s', repeat('_')],
  ['**a repeated', repeat('**a')],
  ['*a _b alternating', repeat('*a _b ')],
  ['*a then a* (deep nesting)', (size) => repeatTo('*a ', size / 2) + repeatTo(' a*', size / 2)],
  ['_a_b_c intraword', repeat('_a')],
  ['* a * spaced', repeat('* a ')],
  ['***a** runs of mixed lengths', repeat('***a** *a*** ')],
  // Code spans: backtick runs that never close, and runs of every length.
  ['`s', repeat('`')],
  ['` a repeated', repeat('` a ')],
  ['backtick runs of growing length', (size) => {
    let body = '';
    for (let n = 1; body.length < size; n = (n % 40) + 1) body += '`'.repeat(n) + 'a';
    return body;
  }],
  ['backtick runs of mixed lengths', repeat('` `` ``` `` `a')],
  // Blocks: quotes and fences.
  ['>s (nested quotes on one line)', repeat('>')],
  ['> lines', repeat('> > x\n')],
  ['unclosed fences', repeat('```x y\n')],
  ['fences and text', repeat('```\na\n')],
  ['blank lines', repeat('\n', '', 'x')],
  ['long lines', repeat('a', '', '\n')],
  // Mentions and escapes.
  ['@s', repeat('@')],
  ['@Ann repeated (500 names)', repeat('@Ann ')],
  ['@Ann1 Le (a prefix of a name)', repeat('@Ann1 Le ')],
  ['\\s', repeat('\\')],
  ['\\* repeated', repeat('\\*')],
  // Random mixes from fixed seeds.
  ['random mix 1', randomMix(PIECES, 1)],
  ['random mix 2', randomMix(PIECES, 2)],
  ['random mix 3', randomMix(PIECES, 3)],
]; // prettier-ignore

describe('the message renderer grows linearly with the message', () => {
  it.each(CASES)('%s', (_name, make) => {
    const growth = measureGrowth(make, (body) => parseMessage(body, matcher));
    expect(growth.ratio).toBeLessThan(LINEAR_RATIO_LIMIT);
  });
});
