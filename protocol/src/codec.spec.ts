import fc from 'fast-check';
import {
  BINARY_FRAME_ERROR,
  type DecodeResult,
  type FrameError,
  FrameErrorMessage,
  decodeClientFrame,
  decodeServerFrame,
  encodeFrame,
  errorFrame,
} from './codec';
import { CLIENT_FRAME_TYPES, ErrorCode, FrameType } from './frame-types';
import { type ClientFrame, type ServerFrame, isHistoryFrame } from './frames';
import { FRAME_MAX_BYTES, TOKEN_MAX_LENGTH } from './limits';

/** Any code point, lone surrogates included (fast-check's `binary` unit is slow to set up). */
const anyCodePoint = fc.integer({ min: 0, max: 0x10ffff }).map((n) => String.fromCodePoint(n));

const ERROR_CODES: readonly string[] = Object.values(ErrorCode);
const CLIENT_TYPES: readonly number[] = CLIENT_FRAME_TYPES;

/** Decodes a client frame written as a JavaScript value. */
function decode(value: unknown): DecodeResult<ClientFrame> {
  return decodeClientFrame(JSON.stringify(value));
}

function errorOf<T>(result: DecodeResult<T>): FrameError {
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.frame)}`);
  return result.error;
}

function frameOf<T>(result: DecodeResult<T>): T {
  if (!result.ok) throw new Error(`expected a frame, got ${JSON.stringify(result.error)}`);
  return result.frame;
}

describe('FrameErrorMessage', () => {
  test('has the texts users see for their own mistakes', () => {
    expect(FrameErrorMessage.emptyMessage).toBe('Messages cannot be empty');
    expect(FrameErrorMessage.bodyTooLong).toBe('Messages can be at most 4000 characters');
    expect(FrameErrorMessage.clientIdTooLong).toBe(
      "Field 'client_id' can be at most 64 characters",
    );
    expect(FrameErrorMessage.count).toBe("Field 'count' must be a whole number from 1 to 500");
    expect(FrameErrorMessage.unknownType(3)).toBe('Unknown frame type 3');
  });

  test('every static text is a non-empty sentence', () => {
    for (const [key, text] of Object.entries(FrameErrorMessage)) {
      if (typeof text === 'function') continue;
      expect([key, text.length > 0]).toEqual([key, true]);
    }
  });
});

describe('decodeClientFrame', () => {
  describe('valid frames decode to exactly the typed shape', () => {
    test('1 message', () => {
      expect(decode({ type: 1, body: 'hello' })).toStrictEqual({
        ok: true,
        frame: { type: 1, body: 'hello' },
      });
    });

    test('1 message with client_id', () => {
      expect(decode({ type: 1, body: 'hello', client_id: 'c-1' })).toStrictEqual({
        ok: true,
        frame: { type: 1, body: 'hello', client_id: 'c-1' },
      });
    });

    test('2 typing true and false', () => {
      expect(decode({ type: 2, typing: true })).toStrictEqual({
        ok: true,
        frame: { type: 2, typing: true },
      });
      expect(decode({ type: 2, typing: false })).toStrictEqual({
        ok: true,
        frame: { type: 2, typing: false },
      });
    });

    test('4 clear', () => {
      expect(decode({ type: 4 })).toStrictEqual({ ok: true, frame: { type: 4 } });
    });

    test('5 history without after', () => {
      expect(decode({ type: 5, count: 100 })).toStrictEqual({
        ok: true,
        frame: { type: 5, count: 100 },
      });
    });

    test('5 history with after', () => {
      expect(decode({ type: 5, count: 100, after: 42 })).toStrictEqual({
        ok: true,
        frame: { type: 5, count: 100, after: 42 },
      });
    });

    test('5 history with after and epoch', () => {
      expect(decode({ type: 5, count: 100, after: 42, epoch: 'k3x9' })).toStrictEqual({
        ok: true,
        frame: { type: 5, count: 100, after: 42, epoch: 'k3x9' },
      });
    });

    test('5 history with after 0', () => {
      expect(decode({ type: 5, count: 1, after: 0 })).toStrictEqual({
        ok: true,
        frame: { type: 5, count: 1, after: 0 },
      });
    });

    test('6 heartbeat', () => {
      expect(decode({ type: 6 })).toStrictEqual({ ok: true, frame: { type: 6 } });
    });

    test('8 rename with a token, extra fields dropped', () => {
      expect(decode({ type: 8, token: 'a.b.c', sender: 'Mallory' })).toStrictEqual({
        ok: true,
        frame: { type: 8, token: 'a.b.c' },
      });
    });

    test('whitespace around the JSON text is allowed', () => {
      expect(decodeClientFrame('  {"type":6}\n')).toStrictEqual({ ok: true, frame: { type: 6 } });
    });

    test('a type written as 1.0 is the integer 1', () => {
      expect(frameOf(decodeClientFrame('{"type":1.0,"body":"x"}'))).toStrictEqual({
        type: 1,
        body: 'x',
      });
    });

    test('the body is trimmed', () => {
      expect(frameOf(decode({ type: 1, body: '  hello world \n\t' }))).toStrictEqual({
        type: 1,
        body: 'hello world',
      });
    });

    test('inner whitespace and newlines of the body are kept', () => {
      expect(frameOf(decode({ type: 1, body: ' line 1\nline  2 ' }))).toStrictEqual({
        type: 1,
        body: 'line 1\nline  2',
      });
    });

    test('the client_id is passed through unchanged (not trimmed)', () => {
      expect(frameOf(decode({ type: 1, body: 'x', client_id: ' id ' }))).toStrictEqual({
        type: 1,
        body: 'x',
        client_id: ' id ',
      });
    });

    test('unicode bodies survive', () => {
      const body = '¡Hola! 🌮 日本語 مرحبا \u{1F468}\u200D\u{1F469}\u200D\u{1F467}';
      expect(frameOf(decode({ type: 1, body }))).toStrictEqual({ type: 1, body });
    });
  });

  describe('extra fields are ignored', () => {
    test('a client-supplied sender, room, timestamp and seq do not come through', () => {
      const frame = frameOf(
        decode({
          type: 1,
          body: 'hi',
          sender: 'admin',
          room: 'other-room',
          timestamp: 1,
          seq: 999,
          messages: [{ sender: 'admin', body: 'fake', timestamp: 1, seq: 1 }],
          complete: true,
        }),
      );
      expect(frame).toStrictEqual({ type: 1, body: 'hi' });
      expect(frame).not.toHaveProperty('sender');
    });

    test.each([
      [
        { type: 2, typing: true, sender: 'admin', room: 'x' },
        { type: 2, typing: true },
      ],
      [{ type: 4, sender: 'admin', room: 'x' }, { type: 4 }],
      [
        { type: 5, count: 10, sender: 'admin', room: 'x' },
        { type: 5, count: 10 },
      ],
      [{ type: 6, sender: 'admin', body: 'x' }, { type: 6 }],
    ])('%j decodes to %j', (input, expected) => {
      expect(frameOf(decode(input))).toStrictEqual(expected);
    });
  });

  describe('text that is not a JSON object', () => {
    test.each(['', ' ', 'hello', '{', '{"type":1', "{'type':1}", '{type:1}', 'undefined', 'NaN'])(
      '%j is not JSON',
      (text) => {
        expect(errorOf(decodeClientFrame(text))).toEqual({
          code: 'bad_frame',
          message: FrameErrorMessage.notJson,
        });
      },
    );

    test.each([
      '[]',
      '[{"type":1,"body":"x"}]',
      '"hello"',
      '"{\\"type\\":6}"',
      '42',
      '6',
      'null',
      'true',
    ])('%s is JSON but not an object', (text) => {
      expect(errorOf(decodeClientFrame(text))).toEqual({
        code: 'bad_frame',
        message: FrameErrorMessage.notObject,
      });
    });
  });

  describe('type', () => {
    test.each([
      ['missing', {}],
      ['missing with a body', { body: 'hello' }],
      ['a string', { type: '1', body: 'hello' }],
      ['a float', { type: 1.5, body: 'hello' }],
      ['null', { type: null }],
      ['a boolean', { type: true }],
      ['an array', { type: [1], body: 'hello' }],
      ['an object', { type: { valueOf: 1 } }],
    ])('%s is a bad frame', (_label, value) => {
      expect(errorOf(decode(value))).toEqual({
        code: 'bad_frame',
        message: FrameErrorMessage.type,
      });
    });

    test('an infinite type (1e400) is a bad frame', () => {
      expect(errorOf(decodeClientFrame('{"type":1e400}')).code).toBe('bad_frame');
    });

    test.each([3, 7, 0, 99, -1, -6, 9, 1e21])('%d is an unknown type', (type) => {
      expect(errorOf(decode({ type, body: 'x', typing: true, count: 1 }))).toEqual({
        code: 'unknown_type',
        message: `Unknown frame type ${type}`,
      });
    });

    test.each<[string, unknown]>([
      ['without a token', { type: 8 }],
      ['with an empty token', { type: 8, token: '' }],
      ['with a numeric token', { type: 8, token: 5 }],
      ['with a null token', { type: 8, token: null }],
      ['with a token over the limit', { type: 8, token: 'x'.repeat(TOKEN_MAX_LENGTH + 1) }],
    ])('8 rename %s is a bad frame', (_label, value) => {
      expect(errorOf(decode(value))).toEqual({
        code: 'bad_frame',
        message: FrameErrorMessage.token,
      });
    });

    test('8 rename with a token of exactly the limit decodes', () => {
      const token = 'x'.repeat(TOKEN_MAX_LENGTH);
      expect(frameOf(decode({ type: 8, token }))).toStrictEqual({ type: 8, token });
    });

    test('server-only type 3 (presence) from a client is an unknown type', () => {
      expect(errorOf(decode({ type: 3, room: 'r', sender: 's', connecting: true })).code).toBe(
        'unknown_type',
      );
    });

    test('type 7 (error) from a client is an unknown type', () => {
      expect(errorOf(decode({ type: 7, code: 'bad_frame', message: 'x' })).code).toBe(
        'unknown_type',
      );
    });
  });

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

  describe('2 typing', () => {
    test.each([
      ['missing', { type: 2 }],
      ['a string', { type: 2, typing: 'true' }],
      ['a number', { type: 2, typing: 1 }],
      ['zero', { type: 2, typing: 0 }],
      ['null', { type: 2, typing: null }],
      ['an array', { type: 2, typing: [true] }],
    ])('typing that is %s is a bad frame', (_label, value) => {
      expect(errorOf(decode(value))).toEqual({
        code: 'bad_frame',
        message: FrameErrorMessage.typing,
      });
    });
  });

  describe('5 history', () => {
    test.each([1, 2, 100, 499, 500])('count %i is accepted', (count) => {
      expect(frameOf(decode({ type: 5, count }))).toStrictEqual({ type: 5, count });
    });

    test.each<[string, unknown]>([
      ['missing', undefined],
      ['0', 0],
      ['501', 501],
      ['1.5', 1.5],
      ['"5"', '5'],
      ['-1', -1],
      ['-100', -100],
      ['null', null],
      ['true', true],
      ['an array', [5]],
      ['2^53', 2 ** 53],
      ['1e21', 1e21],
      ['1e308', 1e308],
      ['Number.MAX_VALUE', Number.MAX_VALUE],
    ])('count %s is a bad frame', (_label, count) => {
      expect(errorOf(decode({ type: 5, count }))).toEqual({
        code: 'bad_frame',
        message: FrameErrorMessage.count,
      });
    });

    test.each(['1e400', '-1e400', '-0.5', '100.000001', '1e-7'])(
      'count %s written in JSON is a bad frame',
      (count) => {
        expect(errorOf(decodeClientFrame(`{"type":5,"count":${count}}`)).code).toBe('bad_frame');
      },
    );

    test('count written as 5.0 is the whole number 5', () => {
      expect(frameOf(decodeClientFrame('{"type":5,"count":5.0}'))).toStrictEqual({
        type: 5,
        count: 5,
      });
    });

    test.each([0, 1, 42, 2 ** 53 - 1])('after %d is accepted', (after) => {
      expect(frameOf(decode({ type: 5, count: 10, after }))).toStrictEqual({
        type: 5,
        count: 10,
        after,
      });
    });

    test('after: null is treated as absent', () => {
      const frame = frameOf(decode({ type: 5, count: 10, after: null }));
      expect(frame).toStrictEqual({ type: 5, count: 10 });
      expect(Object.keys(frame)).toEqual(['type', 'count']);
    });

    test.each<[string, unknown]>([
      ['-1', -1],
      ['1.5', 1.5],
      ['"5"', '5'],
      ['true', true],
      ['an object', { seq: 5 }],
      ['an array', [5]],
      ['2^53', 2 ** 53],
      ['1e308', 1e308],
    ])('after %s is a bad frame', (_label, after) => {
      expect(errorOf(decode({ type: 5, count: 10, after }))).toEqual({
        code: 'bad_frame',
        message: FrameErrorMessage.after,
      });
    });

    test.each<[string, unknown]>([
      ['a number', 5],
      ['true', true],
      ['an object', { id: 'x' }],
      ['65 characters', 'e'.repeat(65)],
    ])('epoch %s is a bad frame', (_label, epoch) => {
      expect(errorOf(decode({ type: 5, count: 10, after: 3, epoch }))).toEqual({
        code: 'bad_frame',
        message: FrameErrorMessage.epoch,
      });
    });

    test('epoch: null is treated as absent; 64 characters are accepted', () => {
      expect(frameOf(decode({ type: 5, count: 10, epoch: null }))).toStrictEqual({
        type: 5,
        count: 10,
      });
      const epoch = 'e'.repeat(64);
      expect(frameOf(decode({ type: 5, count: 10, epoch }))).toStrictEqual({
        type: 5,
        count: 10,
        epoch,
      });
    });

    test('a bad count is reported before a bad after', () => {
      expect(errorOf(decode({ type: 5, count: 0, after: -1 })).message).toBe(
        FrameErrorMessage.count,
      );
    });
  });

  describe('hostile input', () => {
    test('10000 levels of nested arrays inside a field do not throw', () => {
      const deep = '['.repeat(10_000) + ']'.repeat(10_000);
      const text = `{"type":1,"body":"hi","extra":${deep}}`;
      expect(() => decodeClientFrame(text)).not.toThrow();
      expect(decodeClientFrame(text)).toStrictEqual({ ok: true, frame: { type: 1, body: 'hi' } });
    });

    test('10000 levels of nested arrays in place of the body do not throw', () => {
      const deep = '['.repeat(10_000) + ']'.repeat(10_000);
      const result = decodeClientFrame(`{"type":1,"body":${deep}}`);
      expect(errorOf(result).code).toBe('bad_frame');
    });

    test('10000 levels of nested objects do not throw', () => {
      const deep = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
      expect(errorOf(decodeClientFrame(deep)).code).toBe('bad_frame');
      expect(frameOf(decodeClientFrame(`{"type":6,"x":${deep}}`))).toStrictEqual({ type: 6 });
    });

    test('100000 unbalanced brackets do not throw', () => {
      expect(errorOf(decodeClientFrame('['.repeat(100_000))).code).toBe('bad_frame');
      expect(errorOf(decodeClientFrame(`{"type":1,"body":${'['.repeat(100_000)}`)).code).toBe(
        'bad_frame',
      );
    });

    test('a __proto__ key neither pollutes Object.prototype nor supplies fields', () => {
      const text = '{"__proto__":{"type":1,"body":"injected","polluted":true}}';
      const result = decodeClientFrame(text);
      expect(errorOf(result).code).toBe('bad_frame');
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.prototype).not.toHaveProperty('polluted');
    });

    test('a __proto__ key beside valid fields is ignored', () => {
      const text = '{"type":1,"body":"hi","__proto__":{"polluted":true,"sender":"admin"}}';
      const frame = frameOf(decodeClientFrame(text));
      expect(frame).toStrictEqual({ type: 1, body: 'hi' });
      expect(Object.getPrototypeOf(frame)).toBe(Object.prototype);
      expect((frame as unknown as Record<string, unknown>).sender).toBeUndefined();
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    test('constructor.prototype keys do not pollute', () => {
      const text = '{"type":6,"constructor":{"prototype":{"polluted":true}}}';
      expect(frameOf(decodeClientFrame(text))).toStrictEqual({ type: 6 });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    test('a duplicate key takes the last value, as JSON.parse does', () => {
      expect(frameOf(decodeClientFrame('{"type":1,"body":"a","body":"b"}'))).toStrictEqual({
        type: 1,
        body: 'b',
      });
    });

    test('a body with a lone surrogate does not throw', () => {
      expect(() => decodeClientFrame('{"type":1,"body":"\\ud800"}')).not.toThrow();
    });

    test('a body with a NUL character does not throw', () => {
      expect(frameOf(decodeClientFrame('{"type":1,"body":"a\\u0000b"}'))).toStrictEqual({
        type: 1,
        body: 'a\u0000b',
      });
    });

    test('a very long text does not throw', () => {
      const text = `{"type":1,"body":"${'a'.repeat(1_000_000)}"}`;
      expect(errorOf(decodeClientFrame(text)).code).toBe('too_long');
    });
  });

  describe('properties', () => {
    const clientFrameShaped = fc.record(
      {
        type: fc.oneof(fc.constantFrom(1, 2, 3, 4, 5, 6, 7), fc.jsonValue()),
        body: fc.oneof(fc.string({ unit: anyCodePoint }), fc.jsonValue()),
        client_id: fc.oneof(fc.string({ unit: anyCodePoint, maxLength: 70 }), fc.jsonValue()),
        typing: fc.oneof(fc.boolean(), fc.jsonValue()),
        count: fc.oneof(fc.integer({ min: -5, max: 505 }), fc.double(), fc.jsonValue()),
        after: fc.oneof(fc.integer({ min: -5, max: 1000 }), fc.constant(null), fc.jsonValue()),
        epoch: fc.oneof(fc.string({ unit: anyCodePoint, maxLength: 70 }), fc.jsonValue()),
        sender: fc.string(),
      },
      { requiredKeys: [] },
    );

    const anyText = fc.oneof(
      fc.string(),
      fc.string({ unit: anyCodePoint }),
      fc.string({
        unit: fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n)),
      }),
      fc.json(),
      fc.anything().map((value) => JSON.stringify(value) ?? 'undefined'),
      clientFrameShaped.map((value) => JSON.stringify(value)),
    );

    const ALLOWED_KEYS: Record<number, string[]> = {
      1: ['type', 'body', 'client_id'],
      2: ['type', 'typing', 'client_id'],
      4: ['type', 'client_id'],
      5: ['type', 'count', 'after', 'epoch', 'client_id'],
      6: ['type'],
      8: ['type', 'token', 'client_id'],
    };

    /** What is wrong with a decode result, or null. Plain code, not `expect`, to keep runs fast. */
    function problemWith(result: DecodeResult<ClientFrame>): string | null {
      if (!result.ok) {
        if (!ERROR_CODES.includes(result.error.code)) return `unknown code ${result.error.code}`;
        if (typeof result.error.message !== 'string' || result.error.message.length === 0) {
          return 'missing error message';
        }
        return null;
      }
      const frame = result.frame;
      if (!CLIENT_TYPES.includes(frame.type)) return `not a client type: ${frame.type}`;
      const allowed = ALLOWED_KEYS[frame.type] ?? [];
      const extra = Object.keys(frame).filter((key) => !allowed.includes(key));
      if (extra.length > 0) return `unexpected fields ${extra.join(', ')}`;
      if ('client_id' in frame) {
        if (typeof frame.client_id !== 'string') return 'client_id is not a string';
        if ([...frame.client_id].length > 64) return 'client_id too long';
      }
      switch (frame.type) {
        case FrameType.Message:
          if (typeof frame.body !== 'string') return 'body is not a string';
          if (frame.body !== frame.body.trim()) return 'body not trimmed';
          if (frame.body.length === 0) return 'empty body';
          if ([...frame.body].length > 4000) return 'body too long';
          return null;
        case FrameType.Typing:
          return typeof frame.typing === 'boolean' ? null : 'typing is not a boolean';
        case FrameType.History:
          if (!Number.isInteger(frame.count) || frame.count < 1 || frame.count > 500) {
            return `bad count ${frame.count}`;
          }
          if ('after' in frame && !(Number.isSafeInteger(frame.after) && frame.after! >= 0)) {
            return `bad after ${frame.after}`;
          }
          if ('epoch' in frame) {
            if (typeof frame.epoch !== 'string') return 'epoch is not a string';
            if ([...frame.epoch].length > 64) return 'epoch too long';
          }
          return null;
        default:
          return null;
      }
    }

    function check(text: string): void {
      let problem: string | null;
      try {
        problem = problemWith(decodeClientFrame(text));
      } catch (error) {
        problem = `threw ${String(error)}`;
      }
      if (problem !== null) throw new Error(`${problem} for ${JSON.stringify(text)}`);
    }

    test('never throws and returns a client frame or an error with a known code', () => {
      fc.assert(fc.property(anyText, check), { numRuns: 1500 });
    });

    test('arbitrary JSON values never make it throw', () => {
      fc.assert(fc.property(fc.json(), check), { numRuns: 500 });
      fc.assert(
        fc.property(fc.anything(), (value) => check(JSON.stringify(value) ?? 'undefined')),
        { numRuns: 500 },
      );
    });

    test('the property check itself catches a bad result', () => {
      const forged = { ok: true, frame: { type: 1, body: ' x ', sender: 'admin' } } as const;
      expect(problemWith(forged as unknown as DecodeResult<ClientFrame>)).toBe(
        'unexpected fields sender',
      );
      const badCode = { ok: false, error: { code: 'oops', message: 'x' } };
      expect(problemWith(badCode as unknown as DecodeResult<ClientFrame>)).toBe(
        'unknown code oops',
      );
    });

    test('a decoded frame re-encodes to a frame that decodes to itself', () => {
      fc.assert(
        fc.property(clientFrameShaped, (value) => {
          const result = decode(value);
          if (!result.ok) return;
          expect(decodeClientFrame(encodeFrame(result.frame))).toStrictEqual(result);
        }),
        { numRuns: 500 },
      );
    });
  });
});

describe('encodeFrame', () => {
  const clientFrames: ClientFrame[] = [
    { type: 1, body: 'hello 🌮' },
    { type: 1, body: 'hello', client_id: 'abc' },
    { type: 2, typing: true },
    { type: 2, typing: false },
    { type: 4 },
    { type: 5, count: 100 },
    { type: 5, count: 500, after: 17 },
    { type: 5, count: 500, after: 17, epoch: 'k3x9' },
    { type: 6 },
  ];

  test.each(clientFrames)('client frame %j round-trips', (frame) => {
    expect(decodeClientFrame(encodeFrame(frame))).toStrictEqual({ ok: true, frame });
  });

  test('produces JSON text', () => {
    expect(encodeFrame({ type: 6 })).toBe('{"type":6}');
    expect(JSON.parse(encodeFrame({ type: 1, body: 'a"b\\c\n' }))).toEqual({
      type: 1,
      body: 'a"b\\c\n',
    });
  });

  const serverFrames: ServerFrame[] = [
    {
      type: 1,
      room: 'teal-otter',
      sender: 'alice',
      body: 'hi',
      timestamp: 1700000000.5,
      seq: 1,
      epoch: 'k3x9',
    },
    {
      type: 1,
      room: 'teal-otter',
      sender: 'alice',
      body: 'hi',
      timestamp: 1700000000,
      seq: 2,
      epoch: 'k3x9',
      client_id: 'c1',
    },
    {
      type: 1,
      room: 'teal-otter',
      epoch: 'k3x9',
      messages: [
        { sender: 'alice', body: 'one', timestamp: 1, seq: 1 },
        { sender: 'bob', body: 'two', timestamp: 2.25, seq: 2 },
      ],
      complete: true,
    },
    { type: 1, room: 'teal-otter', epoch: 'k3x9', messages: [], complete: false },
    { type: 2, room: 'teal-otter', sender: 'alice', typing: true },
    { type: 3, room: 'teal-otter', sender: 'alice', connecting: false },
    { type: 4, room: 'teal-otter', sender: 'alice' },
    { type: 6 },
    { type: 7, code: 'rate_limited', message: 'You are sending too fast; please slow down' },
  ];

  test.each(serverFrames)('server frame %j round-trips', (frame) => {
    expect(decodeServerFrame(encodeFrame(frame))).toStrictEqual({ ok: true, frame });
  });
});

describe('errorFrame', () => {
  test('wraps an error as a type 7 frame', () => {
    expect(errorFrame({ code: 'too_long', message: 'long' })).toStrictEqual({
      type: 7,
      code: 'too_long',
      message: 'long',
    });
  });

  test('wraps a decode error so a client can read it back', () => {
    const error = errorOf(decodeClientFrame('nope'));
    const text = encodeFrame(errorFrame(error));
    expect(JSON.parse(text)).toEqual({ type: 7, code: 'bad_frame', message: error.message });
    expect(decodeServerFrame(text)).toStrictEqual({
      ok: true,
      frame: { type: 7, code: 'bad_frame', message: FrameErrorMessage.notJson },
    });
  });

  test('carries the client_id of the frame it answers', () => {
    expect(errorFrame({ code: 'rate_limited', message: 'slow' }, 'c-1')).toStrictEqual({
      type: 7,
      code: 'rate_limited',
      message: 'slow',
      client_id: 'c-1',
    });
    const error = errorOf(decodeClientFrame('{"type":1,"body":"","client_id":"c-2"}'));
    expect(decodeServerFrame(encodeFrame(errorFrame(error)))).toStrictEqual({
      ok: true,
      frame: {
        type: 7,
        code: 'empty_message',
        message: 'Messages cannot be empty',
        client_id: 'c-2',
      },
    });
  });

  test('does not carry extra properties of the error object', () => {
    const error = { code: 'unavailable', message: 'down', stack: 'secret' } as FrameError;
    expect(errorFrame(error)).toStrictEqual({ type: 7, code: 'unavailable', message: 'down' });
  });
});

describe('BINARY_FRAME_ERROR', () => {
  test('is a bad_frame error telling the client to send JSON text', () => {
    expect(BINARY_FRAME_ERROR).toEqual({
      code: 'bad_frame',
      message: 'Binary frames are not accepted; send JSON text',
    });
    expect(errorFrame(BINARY_FRAME_ERROR)).toStrictEqual({
      type: 7,
      code: 'bad_frame',
      message: FrameErrorMessage.binary,
    });
  });
});

describe('decodeServerFrame', () => {
  function decodeServer(value: unknown): DecodeResult<ServerFrame> {
    return decodeServerFrame(JSON.stringify(value));
  }

  const message = {
    type: 1,
    room: 'teal-otter',
    sender: 'alice',
    body: 'hi',
    timestamp: 1700000000.25,
    seq: 7,
    epoch: 'k3x9',
  };
  const presence = { type: 3, room: 'teal-otter', sender: 'alice', connecting: true };
  const history = {
    type: 1,
    room: 'teal-otter',
    epoch: 'k3x9',
    messages: [{ sender: 'alice', body: 'hi', timestamp: 1, seq: 1 }],
    complete: true,
  };

  describe('accepts each server frame shape', () => {
    test('1 message', () => {
      const frame = frameOf(decodeServer(message));
      expect(frame).toStrictEqual(message);
      expect(isHistoryFrame(frame as Parameters<typeof isHistoryFrame>[0])).toBe(false);
    });

    test('1 message with client_id', () => {
      expect(frameOf(decodeServer({ ...message, client_id: 'c-1' }))).toStrictEqual({
        ...message,
        client_id: 'c-1',
      });
    });

    test('1 history', () => {
      const frame = frameOf(decodeServer(history));
      expect(frame).toStrictEqual(history);
      expect(isHistoryFrame(frame as Parameters<typeof isHistoryFrame>[0])).toBe(true);
    });

    test('1 history, empty and incomplete', () => {
      const empty = { type: 1, room: 'r', epoch: 'e', messages: [], complete: false };
      expect(frameOf(decodeServer(empty))).toStrictEqual(empty);
    });

    test('2 typing', () => {
      const typing = { type: 2, room: 'r', sender: 'alice', typing: false };
      expect(frameOf(decodeServer(typing))).toStrictEqual(typing);
    });

    test('3 presence', () => {
      const presence = { type: 3, room: 'r', sender: 'alice', connecting: true };
      expect(frameOf(decodeServer(presence))).toStrictEqual(presence);
    });

    test('3 presence of a rename: renamed_from on the new name, renamed_to on the old', () => {
      const joined = { type: 3, room: 'r', sender: 'bob', connecting: true, renamed_from: 'al' };
      const left = { type: 3, room: 'r', sender: 'al', connecting: false, renamed_to: 'bob' };
      expect(frameOf(decodeServer(joined))).toStrictEqual(joined);
      expect(frameOf(decodeServer(left))).toStrictEqual(left);
    });

    test('4 cleared', () => {
      const cleared = { type: 4, room: 'r', sender: 'alice' };
      expect(frameOf(decodeServer(cleared))).toStrictEqual(cleared);
    });

    test('6 heartbeat, with any extra fields dropped', () => {
      expect(frameOf(decodeServer({ type: 6 }))).toStrictEqual({ type: 6 });
      expect(frameOf(decodeServer({ type: 6, junk: 1 }))).toStrictEqual({ type: 6 });
    });

    test('7 error', () => {
      const error = { type: 7, code: 'too_long', message: 'Too long' };
      expect(frameOf(decodeServer(error))).toStrictEqual(error);
    });
  });

  describe('rejects malformed frames as bad_frame', () => {
    test.each<[string, unknown]>([
      ['presence with a numeric renamed_from', { ...presence, renamed_from: 1 }],
      ['presence with a null renamed_to', { ...presence, renamed_to: null }],
      ['message without room', { ...message, room: undefined }],
      ['message with a numeric room', { ...message, room: 5 }],
      ['message without sender', { ...message, sender: undefined }],
      ['message with a numeric sender', { ...message, sender: 1 }],
      ['message without body', { ...message, body: undefined }],
      ['message with a null body', { ...message, body: null }],
      ['message without timestamp', { ...message, timestamp: undefined }],
      ['message with a string timestamp', { ...message, timestamp: '1700000000' }],
      ['message without seq', { ...message, seq: undefined }],
      ['message with a string seq', { ...message, seq: '7' }],
      ['message with a numeric client_id', { ...message, client_id: 5 }],
      ['message with a null client_id', { ...message, client_id: null }],
      ['message without epoch', { ...message, epoch: undefined }],
      ['message with a numeric epoch', { ...message, epoch: 7 }],
      ['history without epoch', { ...history, epoch: undefined }],
      ['history with a null epoch', { ...history, epoch: null }],
      ['history without room', { ...history, room: undefined }],
      [
        'history with an entry missing seq',
        { ...history, messages: [{ sender: 'a', body: 'b', timestamp: 1 }] },
      ],
      ['history with a null entry', { ...history, messages: [null] }],
      ['history with a string entry', { ...history, messages: ['hi'] }],
      ['history with a nested array entry', { ...history, messages: [[]] }],
      [
        'history entry with a numeric body',
        { ...history, messages: [{ sender: 'a', body: 1, timestamp: 1, seq: 1 }] },
      ],
      ['history without complete', { ...history, complete: undefined }],
      ['history with a string complete', { ...history, complete: 'true' }],
      ['history with a null complete', { ...history, complete: null }],
      ['typing without typing', { type: 2, room: 'r', sender: 's' }],
      ['typing with a string typing', { type: 2, room: 'r', sender: 's', typing: 'false' }],
      ['typing without sender', { type: 2, room: 'r', typing: true }],
      ['typing without room', { type: 2, sender: 's', typing: true }],
      ['presence without connecting', { type: 3, room: 'r', sender: 's' }],
      ['presence with a numeric connecting', { type: 3, room: 'r', sender: 's', connecting: 1 }],
      ['presence without sender', { type: 3, room: 'r', connecting: true }],
      ['presence without room', { type: 3, sender: 's', connecting: true }],
      ['cleared without sender', { type: 4, room: 'r' }],
      ['cleared without room', { type: 4, sender: 's' }],
      ['error without code', { type: 7, message: 'x' }],
      ['error without message', { type: 7, code: 'bad_frame' }],
      ['error with a numeric code', { type: 7, code: 400, message: 'x' }],
      ['error with a numeric client_id', { type: 7, code: 'too_long', message: 'x', client_id: 1 }],
      ['type 5, which a server never sends', { type: 5, count: 1 }],
      ['an unknown type', { type: 99 }],
      ['a string type', { ...message, type: '1' }],
      ['no type', { room: 'r', sender: 's' }],
    ])('%s', (_label, value) => {
      const error = errorOf(decodeServer(value));
      expect(error.code).toBe('bad_frame');
      expect(error.message).toMatch(/^Unexpected server frame: /);
    });

    test.each(['', 'not json', '[]', 'null', '"text"', '12'])('%j', (text) => {
      expect(errorOf(decodeServerFrame(text)).code).toBe('bad_frame');
    });

    test('the error message quotes at most 200 characters of the frame', () => {
      const text = JSON.stringify({ type: 99, pad: 'x'.repeat(1000) });
      const error = errorOf(decodeServerFrame(text));
      expect(error.message).toBe(`Unexpected server frame: ${text.slice(0, 200)}`);
    });
  });

  test('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: anyCodePoint }),
          fc.json(),
          fc.anything().map((v) => JSON.stringify(v) ?? ''),
        ),
        (text) => {
          const result = decodeServerFrame(text);
          if (!result.ok) expect(result.error.code).toBe('bad_frame');
        },
      ),
      { numRuns: 500 },
    );
  });
});
