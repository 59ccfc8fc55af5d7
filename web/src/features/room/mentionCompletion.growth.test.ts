import { LINEAR_RATIO_LIMIT, measureGrowth, repeatTo } from '@taco/protocol/testing';
import { completeMention, mentionAt } from './mentionCompletion';

/**
 * The composer looks for the mention being typed at every keystroke: that must take time linear
 * in the draft, whatever it holds. See @taco/protocol/testing for the timing.
 */

const DRAFTS: [string, (size: number) => string][] = [
  ['@s', (size) => '@'.repeat(size)],
  ['an @ then a long word', (size) => `@${'a'.repeat(size)}`],
  ['an @ then a long line of spaces', (size) => `@${' '.repeat(size)}`],
  ['no @', (size) => 'a'.repeat(size)],
  ['@ inside words', (size) => repeatTo('a@b', size)],
  ['lines of mentions', (size) => repeatTo('@Ann\n', size)],
  ['emoji after an @', (size) => `@${repeatTo('😀', size)}`],
];

describe('finding the mention being typed grows linearly with the draft', () => {
  it.each(DRAFTS)('%s', (_name, make) => {
    const growth = measureGrowth(make, (draft) => {
      const mention = mentionAt(draft, draft.length);
      if (mention) completeMention(draft, draft.length, mention, 'Ann Lee');
    });
    expect(growth.ratio).toBeLessThan(LINEAR_RATIO_LIMIT);
  });
});
