import {
  decodeServerFrame,
  FrameType,
  type ServerFrame,
  type ServerMessageFrame,
} from '@taco/protocol';
import { type ChatBus, type RoomEvent } from '../../src/bus/chat-bus.port';
import { until } from '../support/until';

export interface BusUnderTest {
  bus: ChatBus;
  /** A second replica's view of the same storage (the same object for a single-process driver). */
  peer?: ChatBus;
  historyMax: number;
  /** Makes the room's stored data go away as it would by expiry (or by storage losing it). */
  expireRoom(room: string): Promise<void>;
  dispose(): Promise<void>;
}

interface Delivered {
  room: string;
  event: RoomEvent;
  frame: ServerFrame;
}

function recorder(bus: ChatBus): Delivered[] {
  const seen: Delivered[] = [];
  bus.onDelivery((room, event) => {
    // A driver may hand over the payload as text or as its bytes: both are the same JSON.
    const text = event.payload.toString();
    const decoded = decodeServerFrame(text);
    if (!decoded.ok) throw new Error(`undecodable payload ${text}`);
    seen.push({ room, event: { ...event, payload: text }, frame: decoded.frame });
  });
  return seen;
}

/**
 * The behaviour every `ChatBus` driver must have. Each driver's spec calls this with a factory;
 * `historyMax` of the bus under test must be 5.
 */
export function describeChatBusContract(driver: string, create: () => Promise<BusUnderTest>): void {
  describe(`ChatBus contract: ${driver}`, () => {
    let subject: BusUnderTest;
    let bus: ChatBus;
    let seen: Delivered[];
    let counter = 0;
    let room: string;

    beforeEach(async () => {
      subject = await create();
      bus = subject.bus;
      seen = recorder(bus);
      room = `contract-${Date.now()}-${++counter}`;
    });
    afterEach(() => subject.dispose());

    const draft = (body: string, clientId?: string) => ({
      sender: 'Ann',
      body,
      timestamp: 1_800_000_000.5,
      clientId,
    });

    it('assigns strictly increasing seq per room, starting at 1', async () => {
      const first = await bus.append(room, draft('a'));
      const second = await bus.append(room, draft('b'));
      const elsewhere = await bus.append(`${room}-other`, draft('c'));
      expect([first.seq, second.seq, elsewhere.seq]).toEqual([1, 2, 1]);
      expect(first).toEqual({
        sender: 'Ann',
        body: 'a',
        timestamp: 1_800_000_000.5,
        seq: 1,
        epoch: expect.any(String),
      });
    });

    it('delivers appended messages to a subscribed room only, with client_id, in order', async () => {
      await bus.subscribe(room);
      const { epoch } = await bus.append(room, draft('one', 'c-1'));
      await bus.append(room, draft('two'));
      await bus.append(`${room}-unsubscribed`, draft('not delivered'));
      await until(() => seen.length >= 2);
      expect(seen.map((d) => d.room)).toEqual([room, room]);
      expect(seen.map((d) => d.frame)).toEqual([
        {
          type: FrameType.Message,
          room,
          sender: 'Ann',
          body: 'one',
          timestamp: 1_800_000_000.5,
          seq: 1,
          epoch,
          client_id: 'c-1',
        },
        {
          type: FrameType.Message,
          room,
          sender: 'Ann',
          body: 'two',
          timestamp: 1_800_000_000.5,
          seq: 2,
          epoch,
        },
      ]);
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(seen).toHaveLength(2);
    });

    it('stops delivering after unsubscribe', async () => {
      await bus.subscribe(room);
      await bus.append(room, draft('seen'));
      await until(() => seen.length === 1);
      await bus.unsubscribe(room);
      await bus.append(room, draft('unseen'));
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(seen).toHaveLength(1);
    });

    it('publishes transient events with their except name, without storing them', async () => {
      await bus.subscribe(room);
      const payload = JSON.stringify({ type: FrameType.Typing, room, sender: 'Ann', typing: true });
      await bus.publish(room, { payload, except: 'Ann' });
      await until(() => seen.length === 1);
      expect(seen[0]?.event).toEqual({ payload, except: 'Ann' });
      expect((await bus.history(room, { count: 10 })).messages).toEqual([]);
    });

    it('returns the last count messages, oldest first', async () => {
      for (const body of ['a', 'b', 'c', 'd']) await bus.append(room, draft(body));
      const page = await bus.history(room, { count: 2 });
      expect(page).toEqual({
        epoch: expect.any(String),
        complete: true,
        messages: [
          { sender: 'Ann', body: 'c', timestamp: 1_800_000_000.5, seq: 3 },
          { sender: 'Ann', body: 'd', timestamp: 1_800_000_000.5, seq: 4 },
        ],
      });
      expect(await bus.history(`${room}-empty`, { count: 5 })).toEqual({
        epoch: expect.any(String),
        messages: [],
        complete: true,
      });
    });

    it('pages forward after a seq', async () => {
      for (const body of ['a', 'b', 'c', 'd']) await bus.append(room, draft(body));
      expect((await bus.history(room, { count: 2, after: 1 })).messages.map((m) => m.seq)).toEqual([
        2, 3,
      ]);
      expect(await bus.history(room, { count: 2, after: 3 })).toMatchObject({ complete: true });
      expect(await bus.history(room, { count: 2, after: 4 })).toEqual({
        epoch: expect.any(String),
        messages: [],
        complete: true,
      });
    });

    it('trims history to its maximum and says what is missing', async () => {
      for (let i = 1; i <= subject.historyMax + 3; i++) await bus.append(room, draft(`m${i}`));
      const all = await bus.history(room, { count: 100 });
      expect(all.messages.map((m) => m.seq)).toEqual([4, 5, 6, 7, 8]);
      expect(await bus.history(room, { count: 100, after: 1 })).toMatchObject({ complete: false });
      expect(await bus.history(room, { count: 100, after: 3 })).toMatchObject({ complete: true });
    });

    it('clears history atomically with the cleared event, and keeps seq going', async () => {
      await bus.subscribe(room);
      await bus.append(room, draft('a'));
      await bus.append(room, draft('b'));
      await bus.clear(room, 'Bob');
      await until(() => seen.length === 3);
      expect(seen[2]?.frame).toEqual({ type: FrameType.Clear, room, sender: 'Bob' });
      expect(await bus.history(room, { count: 10 })).toEqual({
        epoch: expect.any(String),
        messages: [],
        complete: true,
      });
      expect(await bus.history(room, { count: 10, after: 1 })).toEqual({
        epoch: expect.any(String),
        messages: [],
        complete: false,
      });
      expect((await bus.append(room, draft('c'))).seq).toBe(3);
      expect(await bus.history(room, { count: 10, after: 3 })).toMatchObject({ complete: true });
    });

    it('tells a reader who resumes from where a clear left the room that its messages are gone', async () => {
      for (const body of ['a', 'b', 'c']) await bus.append(room, draft(body));
      const { epoch } = await bus.history(room, { count: 10 });
      // A reader held 1–3 and was away while the room was cleared: resuming after 3 is not the
      // whole story, so it replaces its list.
      await bus.clear(room, 'Bob');
      expect(await bus.history(room, { count: 10, after: 3, epoch })).toEqual({
        epoch,
        messages: [],
        complete: false,
      });
      await bus.append(room, draft('d'));
      const resumed = await bus.history(room, { count: 10, after: 3, epoch });
      expect(resumed).toMatchObject({ epoch, complete: false });
      expect(resumed.messages.map((m) => m.body)).toEqual(['d']);
      // Past the clear, paging is as before.
      expect(await bus.history(room, { count: 10, after: 4, epoch })).toEqual({
        epoch,
        messages: [],
        complete: true,
      });
      // A room cleared before it had any message tells nobody anything.
      const fresh = `${room}-fresh`;
      await bus.history(fresh, { count: 10 });
      await bus.clear(fresh, 'Bob');
      await bus.append(fresh, draft('first'));
      expect(await bus.history(fresh, { count: 10, after: 1 })).toMatchObject({ complete: true });
    });

    it('says complete:false for a seq the room never reached', async () => {
      await bus.append(room, draft('a'));
      const page = await bus.history(room, { count: 10, after: 50 });
      expect(page.complete).toBe(false);
      expect(page.messages.map((m) => m.seq)).toEqual([1]);
    });

    it('keeps history order equal to delivery order under concurrent appends', async () => {
      await bus.subscribe(room);
      await Promise.all(Array.from({ length: 20 }, (_, i) => bus.append(room, draft(`m${i}`))));
      await until(() => seen.length === 20);
      const delivered = seen.map((d) => (d.frame as { seq: number }).seq);
      expect(delivered).toEqual([...delivered].sort((a, b) => a - b));
      const stored = (await bus.history(room, { count: 100 })).messages.map((m) => m.seq);
      expect(stored.slice(-subject.historyMax)).toEqual(delivered.slice(-subject.historyMax));
    });

    describe('epoch', () => {
      it('is one short string for every message and page of a room, the first reader included', async () => {
        await bus.subscribe(room);
        const first = await bus.history(room, { count: 10 });
        expect(first.epoch).toMatch(/^[\x21-\x7e]{1,64}$/);
        const appended = [await bus.append(room, draft('a')), await bus.append(room, draft('b'))];
        await bus.clear(room, 'Bob');
        appended.push(await bus.append(room, draft('c')));
        expect(appended.map((m) => [m.seq, m.epoch])).toEqual([
          [1, first.epoch],
          [2, first.epoch],
          [3, first.epoch],
        ]);
        await until(() => seen.length === 4);
        const live = seen
          .map((d) => d.frame)
          .filter((frame): frame is ServerMessageFrame => frame.type === FrameType.Message);
        expect(live.map((frame) => frame.epoch)).toEqual([first.epoch, first.epoch, first.epoch]);
        expect((await bus.history(room, { count: 10, after: 2 })).epoch).toBe(first.epoch);
        expect((await bus.append(`${room}-other`, draft('x'))).epoch).not.toBe(first.epoch);
      });

      it('starts again, with seq, when the room expires or its data is lost', async () => {
        await bus.append(room, draft('a'));
        const before = await bus.append(room, draft('b'));
        await subject.expireRoom(room);
        const page = await bus.history(room, { count: 10, after: 2, epoch: before.epoch });
        expect(page).toEqual({ epoch: expect.any(String), messages: [], complete: false });
        expect(page.epoch).not.toBe(before.epoch);
        expect(await bus.append(room, draft('c'))).toMatchObject({ seq: 1, epoch: page.epoch });
      });

      it('answers a request naming another epoch with the last messages, complete:false', async () => {
        for (const body of ['a', 'b', 'c']) await bus.append(room, draft(body));
        const { epoch } = await bus.history(room, { count: 1 });
        const stale = await bus.history(room, { count: 2, after: 1, epoch: 'not-the-room-s' });
        expect(stale).toEqual({ epoch, messages: expect.any(Array), complete: false });
        expect(stale.messages.map((m) => m.body)).toEqual(['b', 'c']);
        expect(await bus.history(room, { count: 2, after: 2, epoch: 'stale' })).toMatchObject({
          complete: false,
          messages: [{ seq: 2 }, { seq: 3 }],
        });
        expect(await bus.history(room, { count: 5, after: 2, epoch })).toMatchObject({
          complete: true,
          messages: [{ seq: 3 }],
        });
        expect(await bus.history(room, { count: 1, epoch: 'stale' })).toMatchObject({
          complete: false,
          messages: [{ seq: 3 }],
        });
        // An empty epoch is one given, and never the room's.
        expect(await bus.history(room, { count: 2, after: 1, epoch: '' })).toMatchObject({
          complete: false,
          messages: [{ seq: 2 }, { seq: 3 }],
        });
      });
    });

    it('is ready', async () => {
      expect(await bus.isReady()).toBe(true);
    });

    it('knows a room once someone read or wrote there, and forgets it when it expires', async () => {
      expect(await bus.hasRoom(room)).toBe(false);
      await bus.history(room, { count: 10 });
      expect(await bus.hasRoom(room)).toBe(true);
      const written = `${room}-written`;
      await bus.append(written, { sender: 'Ann', body: 'hi', timestamp: 1 });
      expect(await bus.hasRoom(written)).toBe(true);
      await subject.expireRoom(written);
      expect(await bus.hasRoom(written)).toBe(false);
    });
  });
}
