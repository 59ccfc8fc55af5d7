import { ValidationMessage, validateRoomName } from './validation';
import {
  BIDI_CONTROLS,
  BLANK_LETTERS,
  CONTROLS,
  FORBIDDEN,
  LONE_SURROGATES,
  MISSING_VALUES,
  UNSEEN_CODE_POINTS,
  WHITESPACE_BUT_SPACE,
  ZERO_WIDTH,
  nonStringValues,
} from './testing/spec-support';

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
    ...WHITESPACE_BUT_SPACE,
    ['en quad U+2000', '\u2000'],
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
    test.each(MISSING_VALUES)('%s (a missing room name) is too short', (_label, value) => {
      expect(validateRoomName(value)).toBe(ValidationMessage.RoomNameTooShort);
    });

    test.each([
      ...nonStringValues('teal-otter'),
      ['NaN', NaN],
      ['false', false],
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
