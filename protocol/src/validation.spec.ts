import fc from 'fast-check';
import {
  FORBIDDEN_NAME_CHARACTERS,
  ValidationMessage,
  codePointLength,
  normalizeUserName,
  isSameUserName,
  userNameKey,
  validateRoomName,
  validateUserName,
  isBlankText,
} from './validation';

/** Any code point, lone surrogates included (fast-check's `binary` unit is slow to set up). */
const anyCodePoint = fc.integer({ min: 0, max: 0x10ffff }).map((n) => String.fromCodePoint(n));

/** The spec's list, written out here so that a character dropped from the source is caught. */
const FORBIDDEN = [
  '~', '`', '!', '@', '#', '$', '%', '^', '&', '*', '+', '=', '[', ']', '\\', "'", ';', ',', '/',
  '{', '}', '|', '"', ':', '<', '>', '?', '(', ')',
]; // prettier-ignore

const ZERO_WIDTH: Array<[string, string]> = [
  ['U+200B zero-width space', '\u200B'],
  ['U+200C zero-width non-joiner', '\u200C'],
  ['U+200D zero-width joiner', '\u200D'],
  ['U+FEFF zero-width no-break space', '\uFEFF'],
  ['U+2060 word joiner', '\u2060'],
  ['U+00AD soft hyphen', '\u00AD'],
];

const BIDI_CONTROLS: Array<[string, string]> = [
  ['U+200E left-to-right mark', '\u200E'],
  ['U+200F right-to-left mark', '\u200F'],
  ['U+202A LRE', '\u202A'],
  ['U+202B RLE', '\u202B'],
  ['U+202C PDF', '\u202C'],
  ['U+202D LRO', '\u202D'],
  ['U+202E RLO', '\u202E'],
  ['U+2066 LRI', '\u2066'],
  ['U+2067 RLI', '\u2067'],
  ['U+2068 FSI', '\u2068'],
  ['U+2069 PDI', '\u2069'],
];

const CONTROLS: Array<[string, string]> = [
  ['NUL', '\u0000'],
  ['U+0001', '\u0001'],
  ['escape', '\u001B'],
  ['U+001F', '\u001F'],
  ['DEL', '\u007F'],
  ['U+0085 next line', '\u0085'],
  ['U+009F', '\u009F'],
  ['carriage return', '\r'],
  ['backspace', '\b'],
];

const LONE_SURROGATES: Array<[string, string]> = [
  ['high surrogate U+D800', '\uD800'],
  ['high surrogate U+DBFF', '\uDBFF'],
  ['low surrogate U+DC00', '\uDC00'],
  ['low surrogate U+DFFF', '\uDFFF'],
];

/** Characters that render as nothing and could fake an empty or look-alike name. */
const BLANK_LETTERS: Array<[string, string]> = [
  ['Hangul choseong filler U+115F', '\u115F'],
  ['Hangul jungseong filler U+1160', '\u1160'],
  ['Hangul filler U+3164', '\u3164'],
  ['halfwidth Hangul filler U+FFA0', '\uFFA0'],
  ['braille blank U+2800', '\u2800'],
  ['combining grapheme joiner U+034F', '\u034F'],
  ['Khmer inherent vowel U+17B4', '\u17B4'],
  ['Khmer inherent vowel U+17B5', '\u17B5'],
  ['Mongolian free variation selector U+180B', '\u180B'],
];

/**
 * Code points that are unassigned or that Unicode says to render as nothing
 * (Default_Ignorable_Code_Point): "Alice" with one of them looks exactly like "Alice".
 */
const UNSEEN_CODE_POINTS: Array<[string, string]> = [
  ['unassigned default-ignorable U+2065', '\u2065'],
  ['unassigned default-ignorable U+FFF0', '\uFFF0'],
  ['unassigned default-ignorable U+FFF8', '\uFFF8'],
  ['unassigned U+0378', '\u0378'],
  ['unassigned U+05FF', '\u05FF'],
  ['noncharacter U+FDD0', '\uFDD0'],
  ['noncharacter U+FFFF', '\uFFFF'],
  ['noncharacter U+1FFFE', '\u{1FFFE}'],
  ['unassigned plane 3 U+3FFFD', '\u{3FFFD}'],
  ['language tag U+E0001', '\u{E0001}'],
  ['reserved tag U+E0000', '\u{E0000}'],
  ['tag letter U+E0041', '\u{E0041}'],
  ['unassigned default-ignorable U+E0080', '\u{E0080}'],
  ['unassigned default-ignorable U+E0FFF', '\u{E0FFF}'],
  ['a variation selector after a letter', '\uFE0F'],
  ['a text variation selector after a letter', '\uFE0E'],
  ['an ideographic variation selector after a letter', '\u{E0100}'],
  ['Hangul filler U+3164', '\u3164'],
];

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

describe('validateRoomName', () => {
  test.each([
    'teal-otter',
    'abc',
    'ABC',
    'a_b',
    'a.b',
    'room-42',
    '123',
    'café',
    'ключ',
    '日本語',
    'ab🌮',
    '🌮a🌮',
    'x'.repeat(40),
  ])('accepts %j', (name) => {
    expect(validateRoomName(name)).toBeNull();
  });

  test.each(UNSEEN_CODE_POINTS)('refuses %s anywhere in the room id', (_label, char) => {
    for (const room of [`teal-otter${char}`, `${char}teal-otter`, `teal${char}-otter`]) {
      expect([room, validateRoomName(room)]).toEqual([room, ValidationMessage.RoomNameInvalid]);
    }
  });

  describe('length, counted in code points', () => {
    test.each(['', 'a', 'ab', '🌮', 'a🌮', '🌮🌮'])('%j is too short', (name) => {
      expect(validateRoomName(name)).toBe('Your room name is too short');
    });

    test('two emoji are too short even though they are four UTF-16 units', () => {
      expect('🌮🌮'.length).toBe(4);
      expect(validateRoomName('🌮🌮')).toBe(ValidationMessage.RoomNameTooShort);
    });

    test('3 characters is the minimum', () => {
      expect(validateRoomName('abc')).toBeNull();
      expect(validateRoomName('a1🌮')).toBeNull();
    });

    test('40 characters is valid, 41 is too long', () => {
      expect(validateRoomName('a'.repeat(40))).toBeNull();
      expect(validateRoomName('a'.repeat(41))).toBe('Your room name is too long');
    });

    test('40 emoji-bearing code points are valid although they are 79 UTF-16 units', () => {
      const name = 'a' + '🌮'.repeat(39);
      expect(name.length).toBe(79);
      expect(validateRoomName(name)).toBeNull();
      expect(validateRoomName(name + '🌮')).toBe(ValidationMessage.RoomNameTooLong);
    });

    test('three emoji are a valid length (refused only for lacking a letter or digit)', () => {
      expect(validateRoomName('🌮🌮🌮')).toBe(ValidationMessage.RoomNameInvalid);
    });

    test('room ids are not trimmed: surrounding spaces do not make a short id long enough', () => {
      expect(validateRoomName(' ab ')).toBe(ValidationMessage.RoomNameInvalid);
      expect(validateRoomName(' ab')).toBe(ValidationMessage.RoomNameInvalid);
    });
  });

  test.each(FORBIDDEN)('refuses the forbidden character %j anywhere', (char) => {
    expect(validateRoomName(`${char}room`)).toBe('Invalid room name');
    expect(validateRoomName(`ro${char}om`)).toBe('Invalid room name');
    expect(validateRoomName(`room${char}`)).toBe('Invalid room name');
  });

  test.each([
    ['space', ' '],
    ['tab', '\t'],
    ['newline', '\n'],
    ['carriage return', '\r'],
    ['vertical tab', '\v'],
    ['form feed', '\f'],
    ['no-break space U+00A0', '\u00A0'],
    ['line separator U+2028', '\u2028'],
    ['paragraph separator U+2029', '\u2029'],
    ['ideographic space U+3000', '\u3000'],
    ['en quad U+2000', '\u2000'],
    ['thin space U+2009', '\u2009'],
    ['narrow no-break space U+202F', '\u202F'],
    ['Ogham space mark U+1680', '\u1680'],
  ])('refuses whitespace: %s', (_label, char) => {
    expect(validateRoomName(`teal${char}otter`)).toBe(ValidationMessage.RoomNameInvalid);
    expect(validateRoomName(`${char}teal-otter`)).toBe(ValidationMessage.RoomNameInvalid);
    expect(validateRoomName(`teal-otter${char}`)).toBe(ValidationMessage.RoomNameInvalid);
  });

  test.each([...ZERO_WIDTH, ...BIDI_CONTROLS, ...CONTROLS, ...LONE_SURROGATES, ...BLANK_LETTERS])(
    'refuses %s',
    (_label, char) => {
      expect(validateRoomName(`teal${char}otter`)).toBe(ValidationMessage.RoomNameInvalid);
      expect(validateRoomName(`${char}teal-otter`)).toBe(ValidationMessage.RoomNameInvalid);
      expect(validateRoomName(`teal-otter${char}`)).toBe(ValidationMessage.RoomNameInvalid);
    },
  );

  test('accepts emoji as a phone types them, variation selector and skin tone included', () => {
    expect(validateUserName('Ann ❤\uFE0F')).toBeNull();
    expect(validateUserName('👍🏽👍🏽👍🏽')).toBeNull();
    expect(validateUserName('🌮🌮🌮')).toBeNull();
    expect(validateUserName('Zoe\u0308')).toBeNull();
  });

  test('refuses a right-to-left override used to spoof a name', () => {
    expect(validateRoomName('abc\u202Eexe.txt')).toBe(ValidationMessage.RoomNameInvalid);
  });

  test('refuses an emoji joined with a zero-width joiner', () => {
    expect(validateRoomName('a👩\u200D💻')).toBe(ValidationMessage.RoomNameInvalid);
  });

  test.each(['---', '...', '___', '-._', '-.-.-', '🌮🌮🌮', '—–-'])(
    '%j has no letter or digit and is invalid',
    (name) => {
      expect(validateRoomName(name)).toBe(ValidationMessage.RoomNameInvalid);
    },
  );

  test.each(['--a', '..1', '_٣_', '-é-'])('%j has a letter or digit and is valid', (name) => {
    expect(validateRoomName(name)).toBeNull();
  });

  test('a short id is reported as too short before its characters are judged', () => {
    expect(validateRoomName('a!')).toBe(ValidationMessage.RoomNameTooShort);
  });

  test('a long id is reported as too long before its characters are judged', () => {
    expect(validateRoomName('!'.repeat(41))).toBe(ValidationMessage.RoomNameTooLong);
  });

  describe('non-string values', () => {
    test.each([
      ['undefined', undefined],
      ['null', null],
    ])('%s (a missing room name) is too short', (_label, value) => {
      expect(validateRoomName(value)).toBe(ValidationMessage.RoomNameTooShort);
    });

    test.each([
      ['a number', 12345],
      ['zero', 0],
      ['NaN', NaN],
      ['a boolean', true],
      ['false', false],
      ['an object', { name: 'teal-otter' }],
      ['an empty object', {}],
      ['an array', ['teal-otter']],
      ['an empty array', []],
      ['a boxed string', new String('teal-otter')],
      ['a symbol', Symbol('teal-otter')],
      ['a bigint', BigInt(123)],
      ['a function', () => 'teal-otter'],
    ])('%s is an invalid room name', (_label, value) => {
      expect(validateRoomName(value)).toBe(ValidationMessage.RoomNameInvalid);
    });

    test('an object whose toString returns a valid name is still invalid', () => {
      expect(validateRoomName({ toString: () => 'teal-otter' })).toBe(
        ValidationMessage.RoomNameInvalid,
      );
    });
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

  test.each([
    ['tab', '\t'],
    ['newline', '\n'],
    ['carriage return', '\r'],
    ['vertical tab', '\v'],
    ['form feed', '\f'],
    ['no-break space U+00A0', '\u00A0'],
    ['line separator U+2028', '\u2028'],
    ['paragraph separator U+2029', '\u2029'],
    ['ideographic space U+3000', '\u3000'],
    ['thin space U+2009', '\u2009'],
    ['narrow no-break space U+202F', '\u202F'],
  ])('refuses whitespace other than a plain space inside the name: %s', (_label, char) => {
    expect(validateUserName(`ali${char}ce`)).toBe(ValidationMessage.UserNameInvalid);
    expect(validateUserName(`Mary${char}Ann`)).toBe(ValidationMessage.UserNameInvalid);
  });

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
    expect(validateUserName('Ann ❤\uFE0F')).toBeNull();
    expect(validateUserName('👍🏽👍🏽👍🏽')).toBeNull();
    expect(validateUserName('🌮🌮🌮')).toBeNull();
    expect(validateUserName('Zoe\u0308')).toBeNull();
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
    test.each([
      ['undefined', undefined],
      ['null', null],
    ])('%s (a missing user name) is too short', (_label, value) => {
      expect(validateUserName(value)).toBe(ValidationMessage.UserNameTooShort);
    });

    test.each([
      ['a number', 12345],
      ['zero', 0],
      ['a boolean', true],
      ['an object', { name: 'alice' }],
      ['an empty object', {}],
      ['an array', ['alice']],
      ['an empty array', []],
      ['a boxed string', new String('alice')],
      ['a symbol', Symbol('alice')],
      ['a bigint', BigInt(123)],
    ])('%s is an invalid user name', (_label, value) => {
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

describe('properties', () => {
  const loneSurrogateOrAny = fc.oneof(
    fc.string({ unit: anyCodePoint, maxLength: 50 }),
    fc.string({ unit: 'grapheme', maxLength: 50 }),
    fc.string({ unit: 'binary-ascii', maxLength: 50 }),
    fc.string({
      unit: fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n)),
      maxLength: 50,
    }),
    fc.string({
      unit: fc.constantFrom(...FORBIDDEN, ' ', '\t', '\u200B', '\u202E', '\uD800', 'a', '🌮', '-'),
      maxLength: 45,
    }),
  );

  test('validateRoomName never throws and returns null or one of the room messages', () => {
    const roomMessages: unknown[] = [
      null,
      ValidationMessage.RoomNameTooShort,
      ValidationMessage.RoomNameTooLong,
      ValidationMessage.RoomNameInvalid,
    ];
    fc.assert(
      fc.property(loneSurrogateOrAny, (name) => roomMessages.includes(validateRoomName(name))),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.anything(), (value) => roomMessages.includes(validateRoomName(value))),
    );
  });

  test('validateUserName never throws and returns null or one of the user messages', () => {
    const userMessages: unknown[] = [
      null,
      ValidationMessage.UserNameTooShort,
      ValidationMessage.UserNameTooLong,
      ValidationMessage.UserNameInvalid,
    ];
    fc.assert(
      fc.property(loneSurrogateOrAny, (name) => userMessages.includes(validateUserName(name))),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.anything(), (value) => userMessages.includes(validateUserName(value))),
    );
  });

  test('every accepted room name is 3–40 code points with no whitespace or forbidden character', () => {
    const mostlyValid = fc.string({
      unit: fc.constantFrom('a', 'Z', '7', '-', '.', '_', 'é', '🌮', '日', ' ', '!', '\u200B'),
      maxLength: 45,
    });
    let accepted = 0;
    fc.assert(
      fc.property(fc.oneof(mostlyValid, loneSurrogateOrAny), (name) => {
        if (validateRoomName(name) !== null) return true;
        accepted++;
        const length = codePointLength(name);
        return (
          length >= 3 &&
          length <= 40 &&
          !/\s/u.test(name) &&
          /[\p{L}\p{N}]/u.test(name) &&
          ![...name].some((char) => FORBIDDEN.includes(char))
        );
      }),
      { numRuns: 1000 },
    );
    expect(accepted).toBeGreaterThan(0);
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
