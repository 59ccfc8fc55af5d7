import {
  BINARY_FRAME_ERROR,
  type FrameError,
  FrameErrorMessage,
  decodeClientFrame,
  decodeServerFrame,
  encodeFrame,
  errorFrame,
} from './codec';
import { type ClientFrame, type ServerFrame } from './frames';
import { errorOf } from './testing/spec-support';

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
