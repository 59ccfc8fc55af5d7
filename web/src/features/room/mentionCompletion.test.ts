import {
  completeMention,
  MENTION_CANDIDATES_MAX,
  mentionAt,
  mentionCandidates,
} from './mentionCompletion';

describe('mention completion', () => {
  it('finds the mention being typed before the caret', () => {
    expect(mentionAt('hi @bo', 6)).toEqual({ start: 3, query: 'bo' });
    expect(mentionAt('@', 1)).toEqual({ start: 0, query: '' });
    expect(mentionAt('hey @Mary J', 11)).toEqual({ start: 4, query: 'Mary J' });
    expect(mentionAt('(@a', 3)).toEqual({ start: 1, query: 'a' });
  });

  it('starts none inside a word, across a line break, or past a name length', () => {
    expect(mentionAt('mail bob@ex', 11)).toBeNull();
    expect(mentionAt('@bob\nhi', 7)).toBeNull();
    expect(mentionAt(`@${'x'.repeat(40)}`, 41)).toBeNull();
    expect(mentionAt('no at sign', 10)).toBeNull();
  });

  it('offers present names starting with the query, not the user, alphabetical', () => {
    const names = ['bob', 'Alice', 'Bea', 'Mary Jane', 'Bobby'];
    expect(mentionCandidates(names, 'b', 'Alice')).toEqual(['Bea', 'bob', 'Bobby']);
    expect(mentionCandidates(names, '', 'bob')).toEqual(['Alice', 'Bea', 'Bobby', 'Mary Jane']);
    expect(mentionCandidates(names, 'mary j', 'Alice')).toEqual(['Mary Jane']);
    expect(mentionCandidates(names, 'zed', 'Alice')).toEqual([]);
    const many = Array.from({ length: 20 }, (_, i) => `user${i}`);
    expect(mentionCandidates(many, 'u', 'me')).toHaveLength(MENTION_CANDIDATES_MAX);
  });

  it('completes the mention with the name and a space, keeping the rest', () => {
    expect(completeMention('hi @bo', 6, { start: 3, query: 'bo' }, 'Bobby')).toEqual({
      text: 'hi @Bobby ',
      caret: 10,
    });
    expect(completeMention('@ma see you', 3, { start: 0, query: 'ma' }, 'Mary Jane')).toEqual({
      text: '@Mary Jane see you',
      caret: 11,
    });
  });
});
