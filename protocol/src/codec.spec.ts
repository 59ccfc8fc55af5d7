import { FrameErrorMessage, decodeClientFrame } from './codec';
import { TOKEN_MAX_LENGTH } from './limits';
import { decode, errorOf, frameOf } from './testing/spec-support';

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

    test.each([3, 7, 0, 99, -1, -6, 10, 1e21])('%d is an unknown type', (type) => {
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
});
