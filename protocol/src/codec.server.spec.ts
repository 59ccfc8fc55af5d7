import fc from 'fast-check';
import { type DecodeResult, decodeServerFrame } from './codec';
import { type ServerFrame, isHistoryFrame } from './frames';
import { anyCodePoint, errorOf, frameOf } from './testing/spec-support';

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
