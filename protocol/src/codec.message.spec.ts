import { FrameErrorMessage, decodeClientFrame, encodeFrame } from './codec';
import { FRAME_MAX_BYTES } from './limits';
import { decode, errorOf, frameOf } from './testing/spec-support';

describe('decodeClientFrame', () => {
  describe('1 message', () => {
    test.each([
      ['missing', { type: 1 }],
      ['null', { type: 1, body: null }],
      ['a number', { type: 1, body: 42 }],
      ['a boolean', { type: 1, body: true }],
      ['an array', { type: 1, body: ['hi'] }],
      ['an object', { type: 1, body: { text: 'hi' } }],
    ])('a body that is %s is a bad frame', (_label, value) => {
      expect(errorOf(decode(value))).toEqual({
        code: 'bad_frame',
        message: FrameErrorMessage.body,
      });
    });

    test.each([
      ['empty', ''],
      ['a space', ' '],
      ['spaces', '     '],
      ['tabs and newlines', '\t\n\r\n'],
      ['no-break spaces', '\u00A0\u00A0'],
      ['ideographic spaces', '\u3000'],
      ['line separators', '\u2028\u2029'],
      ['a BOM', '\uFEFF'],
      ['mixed whitespace', ' \t\n\u00A0\u3000\u2028\uFEFF '],
      ['zero-width spaces', '\u200B\u200B'],
      ['a Hangul filler', '\u3164'],
      ['a right-to-left override', '\u202E'],
      ['a NUL', '\u0000'],
      ['combining accents alone', ' \u0301\u0301 '],
    ])('a body that is %s is an empty message', (_label, body) => {
      expect(errorOf(decode({ type: 1, body }))).toEqual({
        code: 'empty_message',
        message: 'Messages cannot be empty',
      });
    });

    test('a body that shows something around invisible characters is kept as sent', () => {
      expect(frameOf(decode({ type: 1, body: '\u200Bhi\u200B' }))).toStrictEqual({
        type: 1,
        body: '\u200Bhi\u200B',
      });
    });

    test('an empty body is reported even with a bad client_id', () => {
      expect(errorOf(decode({ type: 1, body: ' ', client_id: 5 })).code).toBe('empty_message');
    });

    test.each<[string, unknown, string]>([
      ['an empty body', ' ', 'empty_message'],
      ['a body over the limit', 'a'.repeat(4001), 'too_long'],
      ['a body that is not a string', 5, 'bad_frame'],
    ])("%s is answered with the frame's valid client_id", (_label, body, code) => {
      expect(errorOf(decode({ type: 1, body, client_id: 'c-7' }))).toEqual({
        code,
        message: expect.any(String),
        client_id: 'c-7',
      });
    });

    test.each<[string, Record<string, unknown>, string]>([
      ['a type that is not a number', { type: '1', body: 'hi' }, 'bad_frame'],
      ['an unknown type', { type: 99 }, 'unknown_type'],
      ['a typing frame without its flag', { type: 2, typing: 'yes' }, 'bad_frame'],
      ['a history request out of range', { type: 5, count: 0 }, 'bad_frame'],
    ])("%s is answered with the frame's valid client_id too", (_label, frame, code) => {
      expect(errorOf(decode({ ...frame, client_id: 'c-8' }))).toEqual({
        code,
        message: expect.any(String),
        client_id: 'c-8',
      });
      expect(errorOf(decode({ ...frame, client_id: 8 }))).not.toHaveProperty('client_id');
    });

    test.each<[string, Record<string, unknown>]>([
      ['a typing frame', { type: 2, typing: true }],
      ['a clear frame', { type: 4 }],
      ['a history request', { type: 5, count: 10, after: 3 }],
      ['a rename frame', { type: 8, token: 'a.b.c' }],
    ])(
      '%s keeps a valid client_id, for an error that answers it later, and drops an invalid one',
      (_label, frame) => {
        expect(frameOf(decode({ ...frame, client_id: 'c-9' }))).toStrictEqual({
          ...frame,
          client_id: 'c-9',
        });
        expect(frameOf(decode({ ...frame, client_id: 9 }))).toStrictEqual(frame);
        expect(frameOf(decode({ ...frame, client_id: 'c'.repeat(65) }))).toStrictEqual(frame);
      },
    );

    test('a heartbeat never carries a client_id (it is answered, never refused)', () => {
      expect(frameOf(decode({ type: 6, client_id: 'c-6' }))).toStrictEqual({ type: 6 });
    });

    test('an invalid client_id is never echoed', () => {
      expect(errorOf(decode({ type: 1, body: ' ', client_id: 'c'.repeat(65) }))).not.toHaveProperty(
        'client_id',
      );
      expect(errorOf(decode({ type: 1, body: 'hi', client_id: 'c'.repeat(65) }))).toEqual({
        code: 'too_long',
        message: FrameErrorMessage.clientIdTooLong,
      });
    });

    test('4000 characters is accepted, 4001 is too long', () => {
      expect(frameOf(decode({ type: 1, body: 'a'.repeat(4000) }))).toStrictEqual({
        type: 1,
        body: 'a'.repeat(4000),
      });
      expect(errorOf(decode({ type: 1, body: 'a'.repeat(4001) }))).toEqual({
        code: 'too_long',
        message: 'Messages can be at most 4000 characters',
      });
    });

    test('the length is judged after trimming', () => {
      const body = `   ${'a'.repeat(4000)}   `;
      expect(frameOf(decode({ type: 1, body }))).toStrictEqual({
        type: 1,
        body: 'a'.repeat(4000),
      });
    });

    test('4000 emoji (8000 UTF-16 units) are accepted, 4001 are too long', () => {
      const body = '🌮'.repeat(4000);
      expect(body.length).toBe(8000);
      expect(frameOf(decode({ type: 1, body }))).toStrictEqual({ type: 1, body });
      expect(errorOf(decode({ type: 1, body: body + '🌮' })).code).toBe('too_long');
    });

    test('a mix of emoji and letters is counted in code points', () => {
      const body = 'a🌮'.repeat(2000);
      expect(frameOf(decode({ type: 1, body }))).toStrictEqual({ type: 1, body });
      expect(errorOf(decode({ type: 1, body: body + 'a' })).code).toBe('too_long');
    });

    test('a body of 4001 characters is too long even when it carries a bad client_id', () => {
      expect(errorOf(decode({ type: 1, body: 'a'.repeat(4001), client_id: 5 })).code).toBe(
        'too_long',
      );
    });

    test.each([
      ['a number', 42],
      ['null', null],
      ['a boolean', false],
      ['an array', ['id']],
      ['an object', { id: 'x' }],
    ])('a client_id that is %s is a bad frame', (_label, client_id) => {
      expect(errorOf(decode({ type: 1, body: 'hi', client_id }))).toEqual({
        code: 'bad_frame',
        message: FrameErrorMessage.clientId,
      });
    });

    test('a client_id of 64 characters is accepted, 65 is too long', () => {
      const id = 'x'.repeat(64);
      expect(frameOf(decode({ type: 1, body: 'hi', client_id: id }))).toStrictEqual({
        type: 1,
        body: 'hi',
        client_id: id,
      });
      expect(errorOf(decode({ type: 1, body: 'hi', client_id: id + 'x' }))).toEqual({
        code: 'too_long',
        message: "Field 'client_id' can be at most 64 characters",
      });
    });

    test('a client_id of 64 emoji is accepted, 65 is too long', () => {
      const id = '🌮'.repeat(64);
      expect(frameOf(decode({ type: 1, body: 'hi', client_id: id }))).toHaveProperty(
        'client_id',
        id,
      );
      expect(errorOf(decode({ type: 1, body: 'hi', client_id: id + '🌮' })).code).toBe('too_long');
    });

    test('a UUID client_id is accepted', () => {
      const id = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
      expect(frameOf(decode({ type: 1, body: 'hi', client_id: id }))).toHaveProperty(
        'client_id',
        id,
      );
    });

    test('the largest valid message frame fits the frame size limit', () => {
      const bodies = ['a', 'é', '日', '🌮', '"', '\\']
        .map((char) => char.repeat(4000))
        .concat(`x${'\n'.repeat(3998)}x`);
      for (const body of bodies) {
        const text = encodeFrame({ type: 1, body, client_id: 'x'.repeat(64) });
        expect(Buffer.byteLength(text, 'utf8')).toBeLessThanOrEqual(FRAME_MAX_BYTES);
        expect(frameOf(decodeClientFrame(text))).toHaveProperty('body', body);
      }
    });
  });
});
