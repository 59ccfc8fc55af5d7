import {
  CloseCode,
  CloseReason,
  ErrorCode,
  type ErrorFrame,
  FRAME_MAX_BYTES,
  FrameType,
  MESSAGE_MAX_LENGTH,
} from '@taco/protocol';
import { JwtService } from '@nestjs/jwt';
import { ChatGateway } from '../src/chat/chat.gateway';
import { isError, isLive, isPresence } from '@taco/harness';
import { roomNames, say } from './support/chat-socket';
import { startTestApp, useTestApp } from './support/test-app';

describe('Chat socket', () => {
  const t = useTestApp();
  const newRoom = roomNames();

  describe('error frames', () => {
    it.each([
      ['text that is not JSON', 'hello', ErrorCode.BadFrame],
      ['a JSON array', '[1]', ErrorCode.BadFrame],
      ['a frame without a type', '{"body":"x"}', ErrorCode.BadFrame],
      ['a string type', '{"type":"1","body":"x"}', ErrorCode.BadFrame],
      ['an unknown type', '{"type":42}', ErrorCode.UnknownType],
      ['a server-only type', '{"type":3}', ErrorCode.UnknownType],
      ['an empty message', '{"type":1,"body":"   "}', ErrorCode.EmptyMessage],
      ['a body that is not a string', '{"type":1,"body":5}', ErrorCode.BadFrame],
      [
        'a body over the limit',
        JSON.stringify({ type: 1, body: 'x'.repeat(MESSAGE_MAX_LENGTH + 1) }),
        ErrorCode.TooLong,
      ],
      [
        'a client_id over the limit',
        JSON.stringify({ type: 1, body: 'x', client_id: 'c'.repeat(65) }),
        ErrorCode.TooLong,
      ],
      ['typing that is not a boolean', '{"type":2,"typing":"yes"}', ErrorCode.BadFrame],
      ['a history count of 0', '{"type":5,"count":0}', ErrorCode.BadFrame],
      ['a history count of 501', '{"type":5,"count":501}', ErrorCode.BadFrame],
      ['a negative after', '{"type":5,"count":5,"after":-1}', ErrorCode.BadFrame],
    ])('answers %s with %s and keeps the connection open', async (_label, raw, code) => {
      const room = newRoom();
      const ann = await t.join(room, 'Ann');
      const bob = await t.join(room, 'Bob');
      ann.send(raw);
      const error = await ann.next<ErrorFrame>(isError(code));
      expect(error).toEqual({ type: FrameType.Error, code, message: expect.any(String) });
      expect(error.message.length).toBeGreaterThan(5);
      // Nothing reached the other participant, and the connection still works.
      expect((await bob.drain(50)).filter((f) => f.type !== FrameType.Presence)).toEqual([]);
      expect((await say(ann, 'still here')).body).toBe('still here');
    });

    it.each([
      ['an empty message', { type: FrameType.Message, body: '  ', client_id: 'c-9' }],
      [
        'a body over the limit',
        { type: FrameType.Message, body: 'x'.repeat(4001), client_id: 'c-9' },
      ],
    ])('answers %s with the client_id it carried', async (_label, frame) => {
      const ann = await t.join(newRoom(), 'Ann');
      ann.send(frame);
      expect(await ann.nextOfType(FrameType.Error)).toMatchObject({ client_id: 'c-9' });
    });

    it.each([
      [
        'throws',
        () => {
          throw new Error('boom');
        },
      ],
      ['rejects', () => Promise.reject(new Error('boom'))],
    ])(
      'answers unavailable when handling a frame unexpectedly %s, and keeps serving',
      async (_label, fail) => {
        const room = newRoom();
        const ann = await t.join(room, 'Ann');
        const gateway = t.app.get(ChatGateway);
        const handleFrame = jest.spyOn(gateway, 'handleFrame').mockImplementationOnce(fail);
        try {
          ann.send({ type: FrameType.Message, body: 'lost to a bug', client_id: 'c-bug' });
          expect(await ann.next<ErrorFrame>(isError(ErrorCode.Unavailable))).toEqual({
            type: FrameType.Error,
            code: ErrorCode.Unavailable,
            message: expect.any(String),
            client_id: 'c-bug',
          });
          expect((await say(ann, 'next one works')).body).toBe('next one works');
        } finally {
          handleFrame.mockRestore();
        }
      },
    );

    it('answers a binary frame with bad_frame', async () => {
      const ann = await t.join(newRoom(), 'Ann');
      ann.socket.send(Buffer.from([0x7b, 0x7d]), { binary: true });
      expect(await ann.next(isError(ErrorCode.BadFrame))).toMatchObject({
        message: expect.stringMatching(/binary/i),
      });
    });
  });

  describe('close codes', () => {
    it('closes with 4401 for a bad token, another room’s token or no token', async () => {
      const room = newRoom();
      const otherRoomToken = await t.token('elsewhere', 'Ann');
      for (const token of ['not-a-jwt', otherRoomToken, '']) {
        const client = t.connect(room, token);
        expect(await client.closed).toEqual({
          code: CloseCode.Unauthorized,
          reason: CloseReason.Unauthorized,
        });
      }
    });

    it('closes with 4401 for a well-signed token not shaped as the server makes them', async () => {
      const room = newRoom();
      const jwt = new JwtService({ secret: t.config.jwtSecret });
      const inAnHour = Math.floor(Date.now() / 1000) + 3600;
      const tokens = [
        // An audience list that names this room among others.
        jwt.sign({ sub: 'Ann', aud: [room, 'elsewhere'], exp: inAnHour }),
        // No expiry.
        jwt.sign({ sub: 'Ann', aud: room }),
      ];
      for (const token of tokens) {
        expect((await t.connect(room, token).closed).code).toBe(CloseCode.Unauthorized);
      }
      // Shaped as the server makes them, the same claims open the room.
      const fine = t.connect(room, jwt.sign({ sub: 'Ann', aud: room, exp: inAnHour }));
      await fine.next(isPresence('Ann', true));
    });

    it('closes with 4401 for an expired token', async () => {
      const room = newRoom();
      const token = await t.token(room, 'Ann');
      const expiring = await startTestApp({ tokenTtlSeconds: 1, jwtSecret: t.config.jwtSecret });
      try {
        const shortLived = await expiring.token(room, 'Ann');
        await new Promise((resolve) => setTimeout(resolve, 2100));
        expect((await expiring.connect(room, shortLived).closed).code).toBe(CloseCode.Unauthorized);
        // A token signed with the same secret but not expired still works there.
        const fine = expiring.connect(room, token);
        await fine.next(isPresence('Ann', true));
      } finally {
        await expiring.close();
      }
    });

    it('closes with 1008 for a browser Origin of another host, and accepts the same host', async () => {
      const room = newRoom();
      const token = await t.token(room, 'Ann');
      const foreign = t.connect(room, token, { origin: 'https://evil.example' });
      expect(await foreign.closed).toMatchObject({ code: CloseCode.Policy });
      const host = new URL(t.baseUrl).host;
      const same = t.connect(room, token, { origin: `http://${host}` });
      await same.next(isPresence('Ann', true));
    });

    it('accepts exactly the ALLOWED_ORIGINS when they are set', async () => {
      const app = await startTestApp({ allowedOrigins: ['https://chat.example.com'] });
      try {
        const token = await app.token('teal-otter', 'Ann');
        const allowed = app.connect('teal-otter', token, { origin: 'https://chat.example.com' });
        await allowed.next(isPresence('Ann', true));
        const host = new URL(app.baseUrl).host;
        const sameHost = app.connect('teal-otter', token, { origin: `http://${host}` });
        expect((await sameHost.closed).code).toBe(CloseCode.Policy);
      } finally {
        await app.close();
      }
    });

    it('closes with 1013 past the per-IP connection cap, and frees the place on leave', async () => {
      const app = await startTestApp({ connectionsPerIp: 2 });
      try {
        const token = await app.token('teal-otter', 'Ann');
        const first = app.connect('teal-otter', token);
        await first.next(isPresence('Ann', true));
        const second = app.connect('teal-otter', token);
        await second.next(isPresence('Ann', true));
        const third = app.connect('teal-otter', token);
        expect((await third.closed).code).toBe(CloseCode.TryAgainLater);
        await first.close();
        await new Promise((resolve) => setTimeout(resolve, 50));
        const fourth = app.connect('teal-otter', token);
        await fourth.next(isPresence('Ann', true));
      } finally {
        await app.close();
      }
    });

    it('closes with 1009 for a frame over 16 KiB', async () => {
      const ann = await t.join(newRoom(), 'Ann');
      ann.send(JSON.stringify({ type: 1, body: 'x'.repeat(FRAME_MAX_BYTES) }));
      expect((await ann.closed).code).toBe(CloseCode.TooBig);
    });

    it('closes with 1012 when the server shuts down, and stops being ready', async () => {
      const app = await startTestApp();
      const ann = await app.join('teal-otter', 'Ann');
      const closing = app.app.close();
      expect((await ann.closed).code).toBe(CloseCode.Restart);
      await closing;
    });
  });

  it('keeps serving everyone after a flood of junk', async () => {
    const room = newRoom();
    const ann = await t.join(room, 'Ann');
    const bob = await t.join(room, 'Bob');
    const junk = [
      '',
      '{',
      'null',
      '{"type":1e400}',
      '{"type":5,"count":1e309}',
      '{"__proto__":{"type":1}}',
      '[[[[[[[[[[]]]]]]]]]]',
    ];
    for (const raw of junk) bob.send(raw);
    for (let i = 0; i < junk.length; i++) await bob.nextOfType(FrameType.Error);
    const message = await say(ann, 'all good');
    expect(await bob.next(isLive)).toEqual(message);
  });
});
