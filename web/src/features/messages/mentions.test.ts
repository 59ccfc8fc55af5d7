import { mentionsUser } from './mentions';

describe('mentionsUser', () => {
  it.each([
    ['@Alice hi', 'Alice'],
    ['hi @alice', 'Alice'],
    ['hey @ALICE, look', 'alice'],
    ['(@Mary Jane)', 'Mary Jane'],
    ['@mary jane: hello', ' Mary Jane '],
    ['first @Bob then @Alice.', 'Alice'],
  ])('%j mentions %j', (body, name) => {
    expect(mentionsUser(body, name)).toBe(true);
  });

  it.each([
    ['Alice hi', 'Alice'],
    ['@Alicia hi', 'Alice'],
    ['mail bob@alice.test', 'Alice'],
    ['@Mary', 'Mary Jane'],
    ['@al ice', 'Alice'],
    ['anything', ''],
  ])('%j does not mention %j', (body, name) => {
    expect(mentionsUser(body, name)).toBe(false);
  });
});
