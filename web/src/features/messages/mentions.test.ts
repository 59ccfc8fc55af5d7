import { mentionsUser } from './mentions';

describe('mentionsUser', () => {
  it('tells whether a body mentions a name, case-insensitively and not inside code', () => {
    expect(mentionsUser('hey @alice look', 'Alice')).toBe(true);
    expect(mentionsUser('**@Alice**', 'Alice')).toBe(true);
    expect(mentionsUser('> @Alice said', 'Alice')).toBe(true);
    expect(mentionsUser('`@Alice`', 'Alice')).toBe(false);
    expect(mentionsUser('@Alicea', 'Alice')).toBe(false);
    expect(mentionsUser('alice@example.com', 'Alice')).toBe(false);
    expect(mentionsUser('Alice, hi', 'Alice')).toBe(false);
  });

  it('gives a mention to the longest known name', () => {
    expect(mentionsUser('@Ann Lee hi', 'Ann')).toBe(true);
    expect(mentionsUser('@Ann Lee hi', 'Ann', ['Ann Lee'])).toBe(false);
    expect(mentionsUser('@Ann Lee hi', 'Ann Lee', ['Ann'])).toBe(true);
  });
});
