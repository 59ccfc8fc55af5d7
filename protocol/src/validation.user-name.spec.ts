import fc from 'fast-check';
import { ValidationMessage, normalizeUserName, validateUserName } from './validation';
import {
  BIDI_CONTROLS,
  BLANK_LETTERS,
  CONTROLS,
  FORBIDDEN,
  LONE_SURROGATES,
  MISSING_VALUES,
  PHONE_EMOJI_NAMES,
  UNSEEN_CODE_POINTS,
  WHITESPACE_BUT_SPACE,
  ZERO_WIDTH,
  anyCodePoint,
  nonStringValues,
} from './testing/spec-support';

describe('validateUserName', () => {
  test.each([
    'bob',
    'Alice',
    'Alice Smith',
    'Mary  Ann',
    'a b',
    'user_1',
    'x-y.z',
    'Élodie',
    '山田太郎',
    '🌮🌮🌮',
    '---',
    '...',
    'a'.repeat(32),
  ])('accepts %j', (name) => {
    expect(validateUserName(name)).toBeNull();
  });

  describe('length, counted in code points after trimming', () => {
    test.each(['', 'a', 'ab', '🌮', '🌮🌮', '   ', '\t\n'])('%j is too short', (name) => {
      expect(validateUserName(name)).toBe('Your user name is too short');
    });

    test("'  ab  ' is too short: only the trimmed name counts", () => {
      expect(validateUserName('  ab  ')).toBe(ValidationMessage.UserNameTooShort);
    });

    test("'  abc  ' is valid", () => {
      expect(validateUserName('  abc  ')).toBeNull();
    });

    test('3 emoji are a valid length', () => {
      expect('🌮🌮🌮'.length).toBe(6);
      expect(validateUserName('🌮🌮🌮')).toBeNull();
    });

    test('32 characters is valid, 33 is too long', () => {
      expect(validateUserName('a'.repeat(32))).toBeNull();
      expect(validateUserName('a'.repeat(33))).toBe('Your user name is too long');
    });

    test('32 characters surrounded by spaces is valid', () => {
      expect(validateUserName(`   ${'a'.repeat(32)}   `)).toBeNull();
    });

    test('32 emoji are valid, 33 are too long', () => {
      expect(validateUserName('🌮'.repeat(32))).toBeNull();
      expect(validateUserName('🌮'.repeat(33))).toBe(ValidationMessage.UserNameTooLong);
    });

    test('inner spaces count towards the length', () => {
      expect(validateUserName(`a${' '.repeat(30)}b`)).toBeNull();
      expect(validateUserName(`a${' '.repeat(31)}b`)).toBe(ValidationMessage.UserNameTooLong);
    });
  });

  test.each(FORBIDDEN)('refuses the forbidden character %j anywhere', (char) => {
    expect(validateUserName(`${char}alice`)).toBe('Invalid user name');
    expect(validateUserName(`ali${char}ce`)).toBe('Invalid user name');
    expect(validateUserName(`alice${char}`)).toBe('Invalid user name');
  });

  test('allows plain spaces inside the name', () => {
    expect(validateUserName('Jean Luc Picard')).toBeNull();
  });

  test.each(WHITESPACE_BUT_SPACE)(
    'refuses whitespace other than a plain space inside the name: %s',
    (_label, char) => {
      expect(validateUserName(`ali${char}ce`)).toBe(ValidationMessage.UserNameInvalid);
      expect(validateUserName(`Mary${char}Ann`)).toBe(ValidationMessage.UserNameInvalid);
    },
  );

  test('leading and trailing whitespace of any kind is trimmed away, not refused', () => {
    expect(validateUserName('\talice\n')).toBeNull();
    expect(validateUserName('\u00A0alice\u3000')).toBeNull();
    expect(normalizeUserName('\u00A0alice\u3000')).toBe('alice');
  });

  test.each([...ZERO_WIDTH, ...BIDI_CONTROLS, ...CONTROLS, ...LONE_SURROGATES, ...BLANK_LETTERS])(
    'refuses %s inside the name',
    (_label, char) => {
      expect(validateUserName(`ali${char}ce`)).toBe(ValidationMessage.UserNameInvalid);
    },
  );

  test.each([
    ...ZERO_WIDTH.filter(([, char]) => char !== '\uFEFF'),
    ...BIDI_CONTROLS,
    ...CONTROLS.filter(([, char]) => char !== '\r'),
    ...LONE_SURROGATES,
    ...BLANK_LETTERS,
  ])('refuses %s at either end, where trimming does not remove it', (_label, char) => {
    expect(validateUserName(`${char}alice`)).toBe(ValidationMessage.UserNameInvalid);
    expect(validateUserName(`alice${char}`)).toBe(ValidationMessage.UserNameInvalid);
  });

  test('refuses names made of invisible characters or combining marks only', () => {
    expect(validateUserName('\u0301\u0301\u0301')).toBe(ValidationMessage.UserNameInvalid);
    expect(validateUserName('\u20DD\u20DD\u20DD')).toBe(ValidationMessage.UserNameInvalid);
    expect(validateUserName('\uFE0F\uFE0F\uFE0F')).toBe(ValidationMessage.UserNameInvalid);
    expect(validateUserName('\u200B\u200B\u200B')).toBe(ValidationMessage.UserNameInvalid);
    expect(validateUserName('\u3164\u3164\u3164')).toBe(ValidationMessage.UserNameInvalid);
    expect(validateUserName('\u2800\u2800\u2800')).toBe(ValidationMessage.UserNameInvalid);
  });

  test('accepts emoji as a phone types them, variation selector and skin tone included', () => {
    for (const name of PHONE_EMOJI_NAMES)
      expect([name, validateUserName(name)]).toEqual([name, null]);
  });

  test('refuses a right-to-left override used to spoof a name', () => {
    expect(validateUserName('admin\u202Enimda')).toBe(ValidationMessage.UserNameInvalid);
  });

  test.each(UNSEEN_CODE_POINTS)('refuses %s anywhere in the name', (_label, char) => {
    for (const name of [`Alice${char}`, `${char}Alice`, `Al${char}ice`]) {
      expect([name, validateUserName(name)]).toEqual([name, ValidationMessage.UserNameInvalid]);
    }
  });

  test('accepts variation selectors where they choose a glyph: after an emoji or an ideograph', () => {
    expect(validateUserName('Ann ❤\uFE0F')).toBeNull();
    expect(validateUserName('1\uFE0F\u20E3 one')).toBeNull();
    expect(validateUserName('葛\u{E0100}飾北斎')).toBeNull();
    expect(validateUserName('☺\uFE0E Sam')).toBeNull();
  });

  describe('non-string values', () => {
    test.each(MISSING_VALUES)('%s (a missing user name) is too short', (_label, value) => {
      expect(validateUserName(value)).toBe(ValidationMessage.UserNameTooShort);
    });

    test.each(nonStringValues('alice'))('%s is an invalid user name', (_label, value) => {
      expect(validateUserName(value)).toBe(ValidationMessage.UserNameInvalid);
    });
  });

  test('a name and its trimmed form are judged the same', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.oneof(anyCodePoint, fc.constantFrom(' ', '\t', '\u00A0', 'a')) }),
        (name) => validateUserName(name) === validateUserName(normalizeUserName(name)),
      ),
    );
  });
});
