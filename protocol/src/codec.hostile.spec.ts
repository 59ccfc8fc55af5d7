import fc from 'fast-check';
import { type DecodeResult, decodeClientFrame, encodeFrame } from './codec';
import { CLIENT_FRAME_TYPES, ErrorCode, FrameType } from './frame-types';
import { type ClientFrame } from './frames';
import { anyCodePoint, decode, errorOf, frameOf } from './testing/spec-support';

const ERROR_CODES: readonly string[] = Object.values(ErrorCode);
const CLIENT_TYPES: readonly number[] = CLIENT_FRAME_TYPES;

describe('decodeClientFrame', () => {
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
