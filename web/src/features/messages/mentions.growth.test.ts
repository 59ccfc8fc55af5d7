import { LINEAR_RATIO_LIMIT, measureGrowth, randomMix, repeatTo } from '@taco/protocol/testing';
import { mentionsUser } from './mentions';

/**
 * Whether a message mentions the reader is asked of every message that arrives (for the bell
 * and the tab title): it must take time linear in the message, however many names the room
 * knows and however the message plays with `@`. See @taco/protocol/testing for the timing.
 */

/** 500 names sharing their first letters, so that a walk down the names cannot stop early. */
const NAMES = Array.from({ length: 500 }, (_, i) => `Ann${i.toString(36)} Lee`);

const CASES: [string, (size: number) => string][] = [
  ['@s', (size) => '@'.repeat(size)],
  ['@Ann repeated', (size) => repeatTo('@Ann ', size)],
  ['prefixes of names', (size) => repeatTo('@Ann1 Le', size)],
  ['whole names', (size) => repeatTo('@Ann1 Lee @ann2 lee ', size)],
  ['addresses (@ inside words)', (size) => repeatTo('ann@Ann1', size)],
  ['mentions in code spans', (size) => repeatTo('`@Ann1 Lee` ', size)],
  ['mentions in quotes', (size) => repeatTo('> @Ann1 Lee\n', size)],
  ['a random mix', randomMix(['@', '@Ann', '1 Lee', ' ', '`', '\n', '> ', '_', '*', 'x'], 5)],
];

describe('finding a mention grows linearly with the message', () => {
  it.each(CASES)('%s', (_name, make) => {
    const growth = measureGrowth(make, (body) => mentionsUser(body, 'Alice', NAMES));
    expect(growth.ratio).toBeLessThan(LINEAR_RATIO_LIMIT);
  });
});
