import { type ChatBus, type RoomEvent } from '../../src/bus/chat-bus.port';
import { type PresenceStore } from '../../src/bus/presence.port';
import { until } from '../support/until';

export interface PresenceUnderTest {
  store: PresenceStore;
  /** The bus the store announces on (`join`/`leave` with an event). */
  bus: ChatBus;
  dispose(): Promise<void>;
}

/** The behaviour every `PresenceStore` driver must have. */
export function describePresenceContract(
  driver: string,
  create: () => Promise<PresenceUnderTest>,
): void {
  describe(`PresenceStore contract: ${driver}`, () => {
    let subject: PresenceUnderTest;
    let store: PresenceStore;
    let counter = 0;
    let room: string;

    beforeEach(async () => {
      subject = await create();
      store = subject.store;
      room = `presence-${Date.now()}-${++counter}`;
    });
    afterEach(() => subject.dispose());

    it('reports a first join with the roster, the newcomer included', async () => {
      expect(await store.join(room, 'Ann', 'c1')).toEqual({ first: true, roster: ['Ann'] });
      const bob = await store.join(room, 'Bob', 'c2');
      expect(bob.first).toBe(true);
      expect([...bob.roster].sort()).toEqual(['Ann', 'Bob']);
    });

    it('counts a name once however many connections it has', async () => {
      await store.join(room, 'Ann', 'c1');
      expect((await store.join(room, 'Ann', 'c2')).first).toBe(false);
      expect(await store.leave(room, 'Ann', 'c1')).toEqual({ last: false });
      expect(await store.isPresent(room, 'Ann')).toBe(true);
      expect(await store.leave(room, 'Ann', 'c2')).toEqual({ last: true });
      expect(await store.isPresent(room, 'Ann')).toBe(false);
    });

    it('names everyone connected now, each name once', async () => {
      expect(await store.names(room)).toEqual([]);
      await store.join(room, 'Ann', 'c1');
      await store.join(room, 'Ann', 'c2');
      await store.join(room, 'Bob', 'c3');
      expect((await store.names(room)).sort()).toEqual(['Ann', 'Bob']);
      await store.leave(room, 'Bob', 'c3');
      expect(await store.names(room)).toEqual(['Ann']);
    });

    it('ignores a leave it never saw', async () => {
      expect(await store.leave(room, 'Nobody', 'c9')).toEqual({ last: false });
      await store.join(room, 'Ann', 'c1');
      expect(await store.leave(room, 'Ann', 'c-unknown')).toEqual({ last: false });
      expect(await store.isPresent(room, 'Ann')).toBe(true);
    });

    it('announces a name to the room on its first join and its last leave, only then', async () => {
      const { bus } = subject;
      const seen: string[] = [];
      bus.onDelivery((to, event) => {
        if (to === room) seen.push(event.payload.toString());
      });
      await bus.subscribe(room);
      const event = (text: string): RoomEvent => ({ payload: text });
      expect(await store.join(room, 'Ann', 'c1', event('Ann came'))).toEqual({
        first: true,
        roster: ['Ann'],
      });
      expect((await store.join(room, 'Ann', 'c2', event('Ann came again'))).first).toBe(false);
      expect((await store.join(room, 'Bob', 'c3')).first).toBe(true);
      expect(await store.leave(room, 'Ann', 'c1', event('Ann left early'))).toEqual({
        last: false,
      });
      expect(await store.leave(room, 'Ann', 'c2', event('Ann left'))).toEqual({ last: true });
      expect(await store.leave(room, 'Ann', 'c2', event('Ann left twice'))).toEqual({
        last: false,
      });
      // Published after the others on the same path: once it is here, so is everything before it.
      await bus.publish(room, event('end'));
      await until(() => seen.includes('end'), 5000, 10);
      expect(seen).toEqual(['Ann came', 'Ann left', 'end']);
    });

    it("lets a rename's token be followed with, in its room only", async () => {
      expect(await store.mayFollowRename(room, 'token-a')).toBe(false);
      await store.noteRename(room, 'token-a');
      expect(await store.mayFollowRename(room, 'token-a')).toBe(true);
      expect(await store.mayFollowRename(room, 'token-b')).toBe(false);
      expect(await store.mayFollowRename(`${room}-other`, 'token-a')).toBe(false);
    });

    it('compares names trimmed and case-insensitively, per room', async () => {
      await store.join(room, 'Ann Lee', 'c1');
      expect(await store.isPresent(room, ' ann lee ')).toBe(true);
      expect(await store.isPresent(room, 'ANN LEE')).toBe(true);
      expect(await store.isPresent(room, 'Ann')).toBe(false);
      expect(await store.isPresent(`${room}-other`, 'Ann Lee')).toBe(false);
    });
  });
}
