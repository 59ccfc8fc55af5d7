import {
  FORBIDDEN_NAME_CHARACTERS,
  ValidationMessage,
  codePointLength,
  normalizeUserName,
  isSameUserName,
  userNameKey,
  isBlankText,
} from './validation';
import { FORBIDDEN } from './testing/spec-support';

describe('ValidationMessage', () => {
  test('carries the exact texts users see', () => {
    expect(ValidationMessage).toEqual({
      RoomNameTooShort: 'Your room name is too short',
      RoomNameTooLong: 'Your room name is too long',
      RoomNameInvalid: 'Invalid room name',
      UserNameTooShort: 'Your user name is too short',
      UserNameTooLong: 'Your user name is too long',
      UserNameInvalid: 'Invalid user name',
    });
  });
});

describe('FORBIDDEN_NAME_CHARACTERS', () => {
  test('is exactly the spec list', () => {
    expect([...FORBIDDEN_NAME_CHARACTERS].sort()).toEqual([...FORBIDDEN].sort());
    expect(FORBIDDEN).toHaveLength(29);
  });
});

describe('codePointLength', () => {
  test.each([
    ['', 0],
    ['abc', 3],
    ['🌮', 1],
    ['🌮🌮🌮', 3],
    ['a🌮b', 3],
    ['日本語', 3],
    ['e\u0301', 2],
    ['\uD800', 1],
    ['\uD800\uD800', 2],
  ])('%j has %i code points', (text, length) => {
    expect(codePointLength(text)).toBe(length);
  });
});

describe('normalizeUserName', () => {
  test.each([
    ['  alice  ', 'alice'],
    ['\talice\n', 'alice'],
    ['alice', 'alice'],
    ['Alice Smith', 'Alice Smith'],
    ['  Alice  Smith  ', 'Alice  Smith'],
    ['\u00A0\u3000bob\u2028', 'bob'],
  ])('%j becomes %j', (raw, normalized) => {
    expect(normalizeUserName(raw)).toBe(normalized);
  });
});

describe('isSameUserName', () => {
  test('tells the same participant by trimmed, case-insensitive name', () => {
    expect(isSameUserName(' Ann Lee ', 'ann lee')).toBe(true);
    expect(isSameUserName('Ann', 'Anne')).toBe(false);
  });
});

describe('userNameKey', () => {
  test('is trimmed and case-insensitive', () => {
    expect(userNameKey('  Alice ')).toBe('alice');
    expect(userNameKey('ALICE')).toBe(userNameKey('alice'));
    expect(userNameKey(' aLiCe\t')).toBe(userNameKey('Alice'));
  });

  test('keeps inner spaces and other characters', () => {
    expect(userNameKey('  Mary Ann ')).toBe('mary ann');
    expect(userNameKey('Mary Ann')).not.toBe(userNameKey('MaryAnn'));
  });

  test('lower-cases non-ASCII letters', () => {
    expect(userNameKey('ÉLODIE')).toBe(userNameKey('élodie'));
    expect(userNameKey('ЮЛЯ')).toBe('юля');
  });

  test('keeps the letters of other scripts that are not drawn as Latin ones', () => {
    expect(userNameKey('Юля')).toBe('юля');
    expect(isSameUserName('Δημήτρης', 'Δήμητρα')).toBe(false);
    expect(isSameUserName('Саша', 'Cawa')).toBe(false);
  });

  test('different names have different keys', () => {
    expect(userNameKey('alice')).not.toBe(userNameKey('alicia'));
    expect(userNameKey('Zoë')).not.toBe(userNameKey('Zoe'));
  });

  test.each([
    ['a run of spaces, which a browser shows as one', 'Alice  Smith', 'alice smith'],
    ['full-width letters', 'ａｌｉｃｅ', 'alice'],
    ['a ligature', 'ﬁona', 'fiona'],
    ['an emoji variation selector', 'Ann ❤\uFE0F', 'ann ❤'],
    ['a text variation selector', 'abc\uFE0E', 'abc'],
    ['a decomposed accent', 'Zoe\u0308', 'zoë'],
  ])('is blind to %s', (_label, name, key) => {
    expect(userNameKey(name)).toBe(key);
  });

  test('keeps letters of other scripts: look-alikes are told apart by their skeleton instead', () => {
    expect(userNameKey('\u0410lice')).not.toBe(userNameKey('Alice'));
    expect(userNameKey('\u0391\u039D\u039D')).not.toBe(userNameKey('ANN'));
  });
});

describe('isBlankText', () => {
  test.each([
    ['nothing', ''],
    ['spaces and line breaks', ' \n\t '],
    ['zero-width spaces', '\u200B\u200B'],
    ['a Hangul filler', '\u3164'],
    ['a right-to-left override', '\u202E'],
    ['a NUL', '\u0000'],
    ['combining accents', '\u0301\u0301'],
    ['variation selectors', '\uFE0F\uFE0E'],
    ['a combining grapheme joiner', '\u034F'],
    ['a braille blank', '\u2800'],
  ])('is true for %s', (_label, text) => {
    expect(isBlankText(text)).toBe(true);
  });

  test.each([
    ['a letter', 'a'],
    ['a digit after blanks', '\u200B 7'],
    ['an emoji', '🌮'],
    ['punctuation', '.'],
    ['a letter with its accent', 'e\u0301'],
    ['a CJK character', '字'],
  ])('is false for %s', (_label, text) => {
    expect(isBlankText(text)).toBe(false);
  });
});
