import {
  FrameType,
  type ServerClearedFrame,
  type ServerHistoryFrame,
  type ServerMessageFrame,
  type ServerTypingFrame,
} from '@taco/protocol';
import { isHistory, isLive, isPresence } from '@taco/harness';
import { roomNames, say } from './support/chat-socket';
import { startTestApp, useTestApp } from './support/test-app';

describe('Chat socket', () => {
  const t = useTestApp();
  const newRoom = roomNames();

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
});
