import fc from 'fast-check';
import {
  ValidationMessage,
  codePointLength,
  validateRoomName,
  validateUserName,
} from './validation';
import { FORBIDDEN, anyCodePoint } from './testing/spec-support';

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

  test.each([
    [
      'validateRoomName',
      'room',
      validateRoomName,
      [
        ValidationMessage.RoomNameTooShort,
        ValidationMessage.RoomNameTooLong,
        ValidationMessage.RoomNameInvalid,
      ],
    ],
    [
      'validateUserName',
      'user',
      validateUserName,
      [
        ValidationMessage.UserNameTooShort,
        ValidationMessage.UserNameTooLong,
        ValidationMessage.UserNameInvalid,
      ],
    ],
  ])(
    '%s never throws and returns null or one of the %s messages',
    (_name, _kind, validate, texts) => {
      const messages: unknown[] = [null, ...texts];
      fc.assert(
        fc.property(loneSurrogateOrAny, (name) => messages.includes(validate(name))),
        { numRuns: 2000 },
      );
      fc.assert(fc.property(fc.anything(), (value) => messages.includes(validate(value))));
    },
  );

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
