import {
  ApiPath,
  CloseCode,
  CloseReason,
  ErrorCode,
  type ErrorFrame,
  FRAME_MAX_BYTES,
  HISTORY_COUNT_MAX,
  FrameErrorMessage,
  FrameType,
  MESSAGE_MAX_LENGTH,
  NAME_TAKEN_MESSAGE,
  type ServerFrame,
  type ServerClearedFrame,
  type ServerHistoryFrame,
  type ServerMessageFrame,
  type ServerTypingFrame,
} from '@taco/protocol';
import { JwtService } from '@nestjs/jwt';
import { ChatGateway } from '../src/chat/chat.gateway';
import { MetricsService } from '../src/metrics/metrics.service';
import { RoomTokenService } from '../src/rooms/room-token.service';
import { startTestApp, type TestApp } from './support/test-app';
import { until } from './support/until';
import { isError, isHistory, isLive, isPresence, type RawClient } from '@taco/harness';

/** How many connections the app has closed with `code` (its `taco_closes_total` metric). */
async function closesWith(app: TestApp, code: number): Promise<number> {
  const closes = app.app.get(MetricsService).registry.getSingleMetric('taco_closes_total');
  const sample = (await closes?.get())?.values.find((value) => value.labels.code === code);
  return sample?.value ?? 0;
}

async function say(
  client: RawClient,
  body: string,
  clientId?: string,
): Promise<ServerMessageFrame> {
  client.send({ type: FrameType.Message, body, client_id: clientId });
  return client.next<ServerMessageFrame>(
    (frame) => isLive(frame) && (clientId === undefined || frame.client_id === clientId),
  );
}

describe('Chat socket', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  let roomCounter = 0;
  const newRoom = () => `room-${++roomCounter}`;

  it('delivers a message to everyone in the room, the sender included, with seq and client_id', async () => {
    const room = newRoom();
    const ann = await t.join(room, 'Ann');
    const bob = await t.join(room, 'Bob');
    ann.send({
      type: FrameType.Message,
      body: '  hello Bob  ',
      client_id: 'c-1',
      sender: 'Mallory',
    });
    const own = await ann.next<ServerMessageFrame>(isLive);
    const theirs = await bob.next<ServerMessageFrame>(isLive);
    expect(own).toEqual({
      type: FrameType.Message,
      room,
      sender: 'Ann',
      body: 'hello Bob',
      timestamp: expect.any(Number),
      seq: 1,
      epoch: expect.any(String),
      client_id: 'c-1',
    });
    expect(theirs).toEqual(own);
    expect(own.timestamp).toBeCloseTo(t.clock.now() / 1000, 3);

    const reply = await say(bob, 'hi Ann');
    expect(reply).toMatchObject({ sender: 'Bob', body: 'hi Ann', seq: 2 });
    expect(reply).not.toHaveProperty('client_id');
    expect(await ann.next<ServerMessageFrame>(isLive)).toMatchObject({
      sender: 'Bob',
      seq: 2,
    });
  });

  it('keeps rooms apart', async () => {
    const [roomA, roomB] = [newRoom(), newRoom()];
    const ann = await t.join(roomA, 'Ann');
    const bob = await t.join(roomB, 'Bob');
    await say(ann, 'only for room A');
    expect((await bob.drain()).filter(isLive)).toEqual([]);
  });

  describe('presence', () => {
    it('gives a newcomer everyone present, itself included, and tells the others', async () => {
      const room = newRoom();
      const ann = await t.join(room, 'Ann');
      const bob = t.connect(room, await t.token(room, 'Bob'));
      const roster = [
        await bob.next(isPresence('Ann', true)),
        await bob.next(isPresence('Bob', true)),
      ];
      expect(roster).toEqual([
        { type: FrameType.Presence, room, sender: 'Ann', connecting: true },
        { type: FrameType.Presence, room, sender: 'Bob', connecting: true },
      ]);
      expect(await ann.next(isPresence('Bob', true))).toEqual({
        type: FrameType.Presence,
        room,
        sender: 'Bob',
        connecting: true,
      });
    });

    it('counts several connections of one name as one participant', async () => {
      const room = newRoom();
      const ann = await t.join(room, 'Ann');
      const bobToken = await t.token(room, 'Bob');
      const bob1 = t.connect(room, bobToken);
      await ann.next(isPresence('Bob', true));
      const bob2 = t.connect(room, bobToken);
      await bob2.next(isPresence('Bob', true));
      expect((await ann.drain()).filter((f) => f.type === FrameType.Presence)).toEqual([]);

      await bob1.close();
      expect((await ann.drain()).filter((f) => f.type === FrameType.Presence)).toEqual([]);
      await bob2.close();
      expect(await ann.next(isPresence('Bob', false))).toEqual({
        type: FrameType.Presence,
        room,
        sender: 'Bob',
        connecting: false,
      });
    });
  });

  it('relays typing to the others only, never to the typist', async () => {
    const room = newRoom();
    const ann = await t.join(room, 'Ann');
    const bob = await t.join(room, 'Bob');
    const annOtherTab = t.connect(room, await t.token(room, 'Carl')); // a third participant
    await annOtherTab.next(isPresence('Carl', true));
    ann.send({ type: FrameType.Typing, typing: true });
    const seen = await bob.nextOfType<ServerTypingFrame>(FrameType.Typing);
    expect(seen).toEqual({ type: FrameType.Typing, room, sender: 'Ann', typing: true });
    expect(await annOtherTab.nextOfType(FrameType.Typing)).toEqual(seen);
    ann.send({ type: FrameType.Typing, typing: false });
    expect(await bob.nextOfType(FrameType.Typing)).toMatchObject({ typing: false });
    expect((await ann.drain()).filter((f) => f.type === FrameType.Typing)).toEqual([]);
  });

  it('clears the room for everyone and empties history', async () => {
    const room = newRoom();
    const ann = await t.join(room, 'Ann');
    const bob = await t.join(room, 'Bob');
    const { epoch } = await say(ann, 'one');
    await say(ann, 'two');
    bob.send({ type: FrameType.Clear });
    const cleared: ServerClearedFrame = { type: FrameType.Clear, room, sender: 'Bob' };
    expect(await ann.nextOfType(FrameType.Clear)).toEqual(cleared);
    expect(await bob.nextOfType(FrameType.Clear)).toEqual(cleared);
    ann.send({ type: FrameType.History, count: 100 });
    expect(await ann.next(isHistory)).toEqual({
      type: FrameType.Message,
      room,
      epoch,
      messages: [],
      complete: true,
    });
    // seq never goes back after a clear, nor does the epoch change
    expect(await say(ann, 'three')).toMatchObject({ seq: 3, epoch });
  });

  describe('one holder per name', () => {
    const signed = (room: string, name: string) => t.app.get(RoomTokenService).sign(room, name);

    it("refuses a second holder's socket for a present name with name_taken and 4409", async () => {
      const room = newRoom();
      // Mallory took "Alice" while Alice was away; Alice came back with her own token.
      const early = signed(room, 'Alice');
      const alice = t.connect(room, signed(room, 'Alice'));
      await alice.next(isPresence('Alice', true));
      const bob = await t.join(room, 'Bob');
      await bob.drain();
      const mallory = t.connect(room, early);
      expect(await mallory.nextOfType(FrameType.Error)).toEqual({
        type: FrameType.Error,
        code: ErrorCode.NameTaken,
        message: NAME_TAKEN_MESSAGE,
      });
      expect(await mallory.closed).toMatchObject({ code: CloseCode.NameTaken });
      // The room never saw a second Alice, and hears nothing when the refused socket goes.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await bob.drain()).toEqual([]);
      expect(await say(alice, 'still me')).toMatchObject({ sender: 'Alice' });
      await alice.close();
      expect(await bob.next(isPresence('Alice', false))).toMatchObject({ connecting: false });
      // Once the holder is gone, the name is free for the other credential.
      const later = t.connect(room, early);
      await later.next(isPresence('Alice', true));
      await later.close();
    });

    it.each([
      ['another case', 'alice'],
      ['a capital I for an l', 'AIice'],
      ['a Cyrillic А', '\u0410lice'],
      ['a Cherokee Ꭺ', '\u13AAlice'],
      ['a Lisu ꓮ', '\uA4EElice'],
    ])('refuses a look-alike (%s) of a present name at the socket', async (_label, lookalike) => {
      const room = newRoom();
      const alice = await t.join(room, 'Alice');
      const twin = t.connect(room, signed(room, lookalike));
      expect(await twin.nextOfType(FrameType.Error)).toMatchObject({ code: ErrorCode.NameTaken });
      expect(await twin.closed).toMatchObject({ code: CloseCode.NameTaken });
      expect(await alice.drain()).toEqual([]);
    });

    it('lets every tab of one credential in, and refuses a rename into a look-alike', async () => {
      const room = newRoom();
      const token = signed(room, 'Bob');
      const tab1 = t.connect(room, token);
      await tab1.next(isPresence('Bob', true));
      const tab2 = t.connect(room, token);
      await tab2.next(isPresence('Bob', true));
      const eve = await t.join(room, 'Eve');
      eve.send({ type: FrameType.Rename, token: signed(room, 'B\u0585b'), client_id: 'r-1' });
      expect(await eve.nextOfType(FrameType.Error)).toMatchObject({
        code: ErrorCode.NameTaken,
        client_id: 'r-1',
      });
      expect(await say(eve, 'still Eve')).toMatchObject({ sender: 'Eve' });
    });
  });

  describe('rename (frame 8)', () => {
    const signed = (room: string, name: string) => t.app.get(RoomTokenService).sign(room, name);
    const presenceFrames = (frames: ServerFrame[]) =>
      frames.filter((f) => f.type === FrameType.Presence);

    it('moves the connection to the new name and tells everyone, old name gone', async () => {
      const room = newRoom();
      const ann = await t.join(room, 'Ann');
      const bob = await t.join(room, 'Bob');
      await ann.next(isPresence('Bob', true));
      ann.send({ type: FrameType.Rename, token: await t.token(room, 'Annie') });
      const renamed = { type: FrameType.Presence, room, sender: 'Annie', connecting: true };
      const gone = { type: FrameType.Presence, room, sender: 'Ann', connecting: false };
      for (const client of [ann, bob]) {
        expect(await client.next(isPresence('Annie', true))).toEqual({
          ...renamed,
          renamed_from: 'Ann',
        });
        expect(await client.next(isPresence('Ann', false))).toEqual({
          ...gone,
          renamed_to: 'Annie',
        });
      }
      // The connection speaks as the new name; the old name is free, the new one taken.
      expect(await say(ann, 'new name')).toMatchObject({ sender: 'Annie' });
      expect((await t.post(ApiPath.roomCredentials(room), { sender_id: 'Ann' })).status).toBe(200);
      expect((await t.post(ApiPath.roomCredentials(room), { sender_id: 'annie' })).status).toBe(
        409,
      );
      const carl = t.connect(room, await t.token(room, 'Carl'));
      await carl.next(isPresence('Carl', true));
      const roster = presenceFrames(await carl.drain()).map((f) => f.sender);
      expect(roster).not.toContain('Ann');
      await ann.close();
      expect(await bob.next(isPresence('Annie', false))).not.toHaveProperty('renamed_to');
    });

    it('keeps the old name present while another of its connections is, until it follows', async () => {
      const room = newRoom();
      const annToken = await t.token(room, 'Ann');
      const tab1 = t.connect(room, annToken);
      await tab1.next(isPresence('Ann', true));
      const tab2 = t.connect(room, annToken);
      await tab2.next(isPresence('Ann', true));
      const bob = await t.join(room, 'Bob');
      await bob.drain();
      const annieToken = await t.token(room, 'Annie');
      tab1.send({ type: FrameType.Rename, token: annieToken });
      expect(await bob.next(isPresence('Annie', true))).toMatchObject({ renamed_from: 'Ann' });
      expect(presenceFrames(await bob.drain())).toEqual([]);
      expect((await t.post(ApiPath.roomCredentials(room), { sender_id: 'Ann' })).status).toBe(409);
      // Another token for that name is someone else's: Bob cannot follow.
      bob.send({ type: FrameType.Rename, token: signed(room, 'Annie') });
      expect(await bob.nextOfType(FrameType.Error)).toMatchObject({ code: ErrorCode.NameTaken });
      await tab2.next(isPresence('Annie', true));
      // The second tab takes the name its first one holds now: only it hears that it moved.
      tab2.send({ type: FrameType.Rename, token: annieToken, client_id: 'f-1' });
      expect(await tab2.next(isPresence('Annie', true))).toEqual({
        type: FrameType.Presence,
        room,
        sender: 'Annie',
        connecting: true,
        renamed_from: 'Ann',
      });
      expect(await bob.next(isPresence('Ann', false))).toMatchObject({ renamed_to: 'Annie' });
      expect(presenceFrames(await bob.drain())).toEqual([]);
      expect(await say(tab2, 'both tabs')).toMatchObject({ sender: 'Annie' });
      expect((await t.post(ApiPath.roomCredentials(room), { sender_id: 'Ann' })).status).toBe(200);
      await tab1.close();
      // Annie is still connected through the second tab.
      expect(presenceFrames(await bob.drain())).toEqual([]);
    });

    it('applies renames sent back to back one after the other, leaving no name behind', async () => {
      const room = newRoom();
      const ann = await t.join(room, 'Ann');
      const bob = await t.join(room, 'Bob');
      await bob.drain();
      ann.send({ type: FrameType.Rename, token: signed(room, 'Annie') });
      ann.send({ type: FrameType.Rename, token: signed(room, 'Anna') });
      expect(await bob.next(isPresence('Annie', true))).toMatchObject({ renamed_from: 'Ann' });
      expect(await bob.next(isPresence('Anna', true))).toMatchObject({ renamed_from: 'Annie' });
      expect(await bob.next(isPresence('Annie', false))).toMatchObject({ renamed_to: 'Anna' });
      await ann.close();
      await bob.next(isPresence('Anna', false));
      const carl = t.connect(room, await t.token(room, 'Carl'));
      await carl.next(isPresence('Carl', true));
      const roster = presenceFrames(await carl.drain()).map((f) => f.sender);
      expect(roster).toEqual(['Bob']);
    });

    it('refuses a token of another room, a forged token and a name someone holds', async () => {
      const room = newRoom();
      const ann = await t.join(room, 'Ann');
      const bob = await t.join(room, 'Bob');
      await ann.next(isPresence('Bob', true));
      await bob.drain();
      const refused: ErrorFrame = {
        type: FrameType.Error,
        code: ErrorCode.Unauthorized,
        message: FrameErrorMessage.renameRefused,
      };
      ann.send({ type: FrameType.Rename, token: await t.token(newRoom(), 'Annie') });
      expect(await ann.nextOfType(FrameType.Error)).toEqual(refused);
      // Each refusal carries the client_id of the frame it answers.
      ann.send({ type: FrameType.Rename, token: 'not-a-token', client_id: 'r-1' });
      expect(await ann.nextOfType(FrameType.Error)).toEqual({ ...refused, client_id: 'r-1' });
      // A valid token for a name someone is connected with.
      ann.send({ type: FrameType.Rename, token: signed(room, 'BOB'), client_id: 'r-2' });
      expect(await ann.nextOfType(FrameType.Error)).toEqual({
        type: FrameType.Error,
        code: ErrorCode.NameTaken,
        message: NAME_TAKEN_MESSAGE,
        client_id: 'r-2',
      });
      // Its own current name: nothing happens.
      ann.send({ type: FrameType.Rename, token: signed(room, 'Ann') });
      expect(presenceFrames(await bob.drain())).toEqual([]);
      expect(await say(ann, 'still me')).toMatchObject({ sender: 'Ann' });
    });
  });

  describe('history', () => {
    it('answers with the last count messages, oldest first, to the asker only', async () => {
      const room = newRoom();
      const ann = await t.join(room, 'Ann');
      const bob = await t.join(room, 'Bob');
      for (let i = 1; i <= 5; i++) await say(ann, `m${i}`);
      bob.send({ type: FrameType.History, count: 3 });
      const history = await bob.next<ServerHistoryFrame>(isHistory);
      expect(history.room).toBe(room);
      expect(history.complete).toBe(true);
      expect(history.messages).toEqual([
        { sender: 'Ann', body: 'm3', timestamp: expect.any(Number), seq: 3 },
        { sender: 'Ann', body: 'm4', timestamp: expect.any(Number), seq: 4 },
        { sender: 'Ann', body: 'm5', timestamp: expect.any(Number), seq: 5 },
      ]);
      expect((await ann.drain()).filter(isHistory)).toEqual([]);
    });

    it('resumes after a seq, a page at a time, after a rejoin', async () => {
      const room = newRoom();
      const ann = await t.join(room, 'Ann');
      for (let i = 1; i <= 5; i++) await say(ann, `m${i}`);
      await ann.close();
      const again = await t.join(room, 'Ann');
      again.send({ type: FrameType.History, count: 2, after: 2 });
      const page = await again.next<ServerHistoryFrame>(isHistory);
      expect(page.messages.map((m) => m.seq)).toEqual([3, 4]);
      expect(page.complete).toBe(true);
      again.send({ type: FrameType.History, count: 2, after: 4 });
      expect((await again.next<ServerHistoryFrame>(isHistory)).messages.map((m) => m.seq)).toEqual([
        5,
      ]);
      again.send({ type: FrameType.History, count: 2, after: 5 });
      expect(await again.next(isHistory)).toMatchObject({ messages: [], complete: true });
    });

    it('says complete:false when messages after the seq are no longer stored', async () => {
      const small = await startTestApp({ historyMax: 3 });
      try {
        const room = 'trimmed-room';
        const ann = await small.join(room, 'Ann');
        for (let i = 1; i <= 6; i++) await say(ann, `m${i}`);
        ann.send({ type: FrameType.History, count: 10, after: 1 });
        const page = await ann.next<ServerHistoryFrame>(isHistory);
        expect(page.complete).toBe(false);
        expect(page.messages.map((m) => m.seq)).toEqual([4, 5, 6]);
        ann.send({ type: FrameType.History, count: 10, after: 3 });
        expect(await ann.next(isHistory)).toMatchObject({ complete: true });
        ann.send({ type: FrameType.History, count: 10, after: 99 });
        const unknown = await ann.next<ServerHistoryFrame>(isHistory);
        expect(unknown.complete).toBe(false);
        expect(unknown.messages.map((m) => m.seq)).toEqual([4, 5, 6]);
        ann.send({ type: FrameType.Clear });
        ann.send({ type: FrameType.History, count: 10, after: 5 });
        expect(await ann.next(isHistory)).toMatchObject({ messages: [], complete: false });
      } finally {
        await small.close();
      }
    });

    it('answers a request naming another epoch with the last messages, complete:false', async () => {
      const room = newRoom();
      const ann = await t.join(room, 'Ann');
      for (let i = 1; i <= 4; i++) await say(ann, `m${i}`);
      ann.send({ type: FrameType.History, count: 2, after: 1, epoch: 'an-old-epoch' });
      const page = await ann.next<ServerHistoryFrame>(isHistory);
      expect(page).toMatchObject({ complete: false, epoch: expect.any(String) });
      expect(page.epoch).not.toBe('an-old-epoch');
      expect(page.messages.map((m) => m.seq)).toEqual([3, 4]);
      ann.send({ type: FrameType.History, count: 2, after: 1, epoch: page.epoch });
      expect(await ann.next(isHistory)).toMatchObject({
        complete: true,
        messages: [{ seq: 2 }, { seq: 3 }],
      });
    });
  });

  it('starts a new epoch after an embedded restart, and says so to a client resuming', async () => {
    const first = await startTestApp();
    let epoch: string;
    try {
      const ann = await first.join('restart-room', 'Ann');
      epoch = (await say(ann, 'before the restart')).epoch;
    } finally {
      await first.close();
    }
    const second = await startTestApp();
    try {
      const ann = await second.join('restart-room', 'Ann');
      ann.send({ type: FrameType.History, count: 10, after: 1, epoch });
      const page = await ann.next<ServerHistoryFrame>(isHistory);
      expect(page).toEqual({
        type: FrameType.Message,
        room: 'restart-room',
        epoch: expect.any(String),
        messages: [],
        complete: false,
      });
      expect(page.epoch).not.toBe(epoch);
      expect(await say(ann, 'after the restart')).toMatchObject({ seq: 1, epoch: page.epoch });
    } finally {
      await second.close();
    }
  });

  it('answers a heartbeat with a heartbeat', async () => {
    const ann = await t.join(newRoom(), 'Ann');
    ann.send({ type: FrameType.Heartbeat });
    expect(await ann.nextOfType(FrameType.Heartbeat)).toEqual({ type: FrameType.Heartbeat });
  });

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

  describe('rate limits', () => {
    it('answers rate_limited past the message burst, refills with time, and keeps the order', async () => {
      const app = await startTestApp({ messageBurst: 3, messagesPerSecond: 1 });
      try {
        const ann = await app.join('teal-otter', 'Ann');
        for (let i = 1; i <= 4; i++) {
          ann.send({ type: FrameType.Message, body: `m${i}`, client_id: `c-${i}` });
        }
        expect(await ann.next(isError(ErrorCode.RateLimited))).toMatchObject({
          type: FrameType.Error,
          client_id: 'c-4',
        });
        const frames = (await ann.drain(50)).filter(isLive);
        expect(frames.map((f) => f.body)).toEqual(['m1', 'm2', 'm3']);
        app.clock.advance(1000);
        expect((await say(ann, 'after a pause')).seq).toBe(4);
      } finally {
        await app.close();
      }
    });

    it('does not hand a socket reopened by the same name a fresh burst, nor a clean record', async () => {
      const app = await startTestApp({ messageBurst: 3, messagesPerSecond: 1 });
      try {
        const token = await app.token('teal-otter', 'Ann');
        const first = app.connect('teal-otter', token);
        await first.next(isPresence('Ann', true));
        for (let i = 1; i <= 3; i++) await say(first, `m${i}`);
        await first.close();
        // Reopened at once: the burst is still spent.
        const second = app.connect('teal-otter', token);
        await second.next(isPresence('Ann', true));
        second.send({ type: FrameType.Message, body: 'again', client_id: 'c-again' });
        expect(await second.next(isError(ErrorCode.RateLimited))).toMatchObject({
          client_id: 'c-again',
        });
        // It refills with time as it would have on the first socket; another name is not affected.
        const bob = await app.join('teal-otter', 'Bob');
        expect((await say(bob, 'hello')).sender).toBe('Bob');
        await second.drain(50);
        app.clock.advance(1000);
        expect((await say(second, 'after a pause')).body).toBe('after a pause');
      } finally {
        await app.close();
      }
    });

    it('limits typing and history requests separately', async () => {
      const app = await startTestApp({ typingPerSecond: 1, historyRequests: 1 });
      try {
        const ann = await app.join('teal-otter', 'Ann');
        ann.send({ type: FrameType.Typing, typing: true });
        ann.send({ type: FrameType.Typing, typing: true, client_id: 't-2' });
        expect(await ann.next(isError(ErrorCode.RateLimited))).toMatchObject({ client_id: 't-2' });
        ann.send({ type: FrameType.History, count: 5 });
        await ann.next(isHistory);
        ann.send({ type: FrameType.History, count: 5, client_id: 'h-2' });
        expect(await ann.next(isError(ErrorCode.RateLimited))).toMatchObject({ client_id: 'h-2' });
        // Messages have their own bucket.
        await say(ann, 'still allowed');
      } finally {
        await app.close();
      }
    });

    it('closes with 4429 after repeated abuse', async () => {
      const app = await startTestApp({ messageBurst: 1, strikesBeforeClose: 3 });
      try {
        const ann = await app.join('teal-otter', 'Ann');
        for (let i = 0; i < 10; i++) ann.send({ type: FrameType.Message, body: `flood ${i}` });
        expect((await ann.closed).code).toBe(CloseCode.RateLimited);
      } finally {
        await app.close();
      }
    });
  });

  it('keeps a reader that gets more than the send-buffer limit in one burst', async () => {
    const app = await startTestApp({ messageBurst: 100_000, messagesPerSecond: 100_000 });
    try {
      const reader = await app.join('burst-room', 'Reader');
      const writer = await app.join('burst-room', 'Writer');
      let received = 0;
      reader.socket.on('message', (data: Buffer) => {
        if ((JSON.parse(data.toString()) as { type: number }).type === FrameType.Message)
          received++;
      });
      // 400 frames of 4,000 characters (1.6 MB) leave the writer in one TCP write, so the server
      // reads them, and fans them out, in one turn of its event loop.
      const total = 400;
      const body = 'x'.repeat(MESSAGE_MAX_LENGTH);
      const tcp = (writer.socket as unknown as { _socket: { cork(): void; uncork(): void } })
        ._socket;
      tcp.cork();
      for (let i = 0; i < total; i++) writer.send({ type: FrameType.Message, body });
      tcp.uncork();
      const deadline = Date.now() + 3_000;
      while (received < total && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect({ received, open: reader.socket.readyState === reader.socket.OPEN }).toEqual({
        received: total,
        open: true,
      });
    } finally {
      await app.close();
    }
  });

  it('closes a client that stops reading with 1013, and everyone else is unaffected', async () => {
    const app = await startTestApp({
      messageBurst: 100_000,
      messagesPerSecond: 100_000,
      // The client reads again once the others have everything, however long that takes here,
      // and must still find the close frame (a paused peer is dropped, see the next test).
      closeTimeoutMs: 120_000,
    });
    try {
      const reader = await app.join('slow-room', 'Reader');
      const slow = await app.join('slow-room', 'Slow');
      const writer = await app.join('slow-room', 'Writer');
      // Stop reading from the socket: the server's send buffer for it grows.
      (slow.socket as unknown as { _socket: { pause(): void } })._socket.pause();
      const body = 'x'.repeat(MESSAGE_MAX_LENGTH);
      let received = 0;
      reader.socket.on('message', () => received++);
      // Paced in batches, so healthy readers drain between them while the paused one piles up.
      const total = 3000;
      for (let batch = 0; batch < total / 50; batch++) {
        for (let i = 0; i < 50; i++) writer.send({ type: FrameType.Message, body });
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const deadline = Date.now() + 20_000;
      while (received < total && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(received).toBeGreaterThanOrEqual(total);
      (slow.socket as unknown as { _socket: { resume(): void } })._socket.resume();
      expect((await slow.closed).code).toBe(CloseCode.TryAgainLater);
      expect(reader.socket.readyState).toBe(reader.socket.OPEN);
    } finally {
      await app.close();
    }
  }, 30_000);

  it('drops a client that stopped reading for good once its close handshake is overdue, and says it left', async () => {
    const app = await startTestApp({ messageBurst: 100_000, messagesPerSecond: 100_000 });
    try {
      const metrics = app.app.get(MetricsService);
      const cutOff = () => closesWith(app, CloseCode.TryAgainLater);
      const open = async () => (await metrics.connections.get()).values[0]?.value ?? 0;
      const reader = await app.join('paused-room', 'Reader');
      const paused = await app.join('paused-room', 'Paused');
      const writer = await app.join('paused-room', 'Writer');
      // A real TCP peer that stops reading and never reads again: it cannot answer a close frame.
      (paused.socket as unknown as { _socket: { pause(): void } })._socket.pause();
      const body = 'x'.repeat(MESSAGE_MAX_LENGTH);
      for (let batch = 0; batch < 400 && (await cutOff()) === 0; batch++) {
        for (let i = 0; i < 50; i++) writer.send({ type: FrameType.Message, body });
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      // The server has started the close (1013); the peer has not answered, so it is still open.
      expect({ cutOff: await cutOff(), open: await open() }).toEqual({ cutOff: 1, open: 3 });
      // Then the server drops the TCP connection, and the others hear that Paused is gone.
      await until(async () => (await open()) === 2, 15_000, 50);
      await reader.next(isPresence('Paused', false), 10_000);
      await writer.next(isPresence('Paused', false), 10_000);
      // And they keep talking.
      writer.send({ type: FrameType.Message, body: 'still here' });
      const after = await reader.next<ServerMessageFrame>(
        (frame) => isLive(frame) && frame.body === 'still here',
        10_000,
      );
      expect(after.sender).toBe('Writer');
      expect(reader.socket.readyState).toBe(reader.socket.OPEN);
    } finally {
      await app.close();
    }
  }, 60_000);

  it('closes with 1013 a client that asks for a large history page and never reads it', async () => {
    const app = await startTestApp({
      messageBurst: 100_000,
      messagesPerSecond: 100_000,
      historyRequests: 100,
      backlogGraceMs: 2000,
    });
    try {
      const cutOff = () => closesWith(app, CloseCode.TryAgainLater);
      // 500 messages of 16 KB: one history page of about 8 MB.
      const writer = await app.join('big-room', 'Writer');
      const body = '🌮'.repeat(MESSAGE_MAX_LENGTH);
      for (let i = 0; i < HISTORY_COUNT_MAX; i++) writer.send({ type: FrameType.Message, body });
      await until(async () => {
        writer.send({ type: FrameType.History, count: 1 });
        // The answer comes after the writer's own 8 MB of copies: no short wait here.
        const page = await writer.next<ServerHistoryFrame>(isHistory, 20_000);
        return page.messages[0]?.seq === HISTORY_COUNT_MAX;
      }, 20_000);
      // A healthy reader gets whole pages, even asked for back to back, and stays.
      for (let i = 0; i < 3; i++)
        writer.send({ type: FrameType.History, count: HISTORY_COUNT_MAX });
      for (let i = 0; i < 3; i++) {
        const page = await writer.next<ServerHistoryFrame>(isHistory, 20_000);
        expect(page.messages).toHaveLength(HISTORY_COUNT_MAX);
      }
      expect(await cutOff()).toBe(0);
      // One that stops reading before it asks is closed once the grace period is over.
      const idle = await app.join('big-room', 'Idle');
      (idle.socket as unknown as { _socket: { pause(): void } })._socket.pause();
      idle.send({ type: FrameType.History, count: HISTORY_COUNT_MAX });
      await until(async () => (await cutOff()) === 1, 10_000, 50);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(writer.socket.readyState).toBe(writer.socket.OPEN);
      expect(await cutOff()).toBe(1);
    } finally {
      await app.close();
    }
  }, 60_000);

  it('drops a connection that stops answering pings', async () => {
    const app = await startTestApp({ pingIntervalMs: 50 });
    try {
      const bob = await app.join('teal-otter', 'Bob');
      const silent = await app.join('teal-otter', 'Ann', { autoPong: false });
      expect((await silent.closed).code).toBe(1006);
      expect(await bob.next(isPresence('Ann', false), 2000)).toMatchObject({ connecting: false });
      expect(bob.socket.readyState).toBe(bob.socket.OPEN);
    } finally {
      await app.close();
    }
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
