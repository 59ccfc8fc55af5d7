import { type ChatMessage, FrameType } from '@taco/protocol';
import { fakeSocketDeps } from '../../../test/fakeSocket';
import { authenticated } from '../../../test/openRoom';
import { makeStore } from '../../app/store';
import { presenceUpdated, roomCleared, roomForgotten, roomJoined } from '../chat/chatActions';
import { FEED_EVENTS_MAX, feedSlice, selectFeedEvents } from './feedSlice';

const ROOM = 'teal-otter';
const ME = 'Alice';

const chat = (seq: number, sender = 'Bob'): ChatMessage => ({
  sender,
  body: `m${seq}`,
  timestamp: 1_700_000_000 + seq,
  seq,
});

/**
 * A room whose socket opened, got the roster (Alice) and its first history answer (Bob's message
 * 7 of epoch e1): the feed's lines come from the frames after, through the socket middleware.
 */
function settled() {
  const fake = fakeSocketDeps();
  const store = makeStore(authenticated(ME, 't'), { socket: fake.deps });
  store.dispatch(roomJoined({ room: ROOM, token: 't' }));
  const socket = fake.last();
  const room = {
    store,
    open: () => socket.serverOpen(),
    presence: (sender: string, connecting: boolean, renamed?: object) =>
      socket.serverSend({ type: FrameType.Presence, room: ROOM, sender, connecting, ...renamed }),
    message: (seq: number, sender = 'Bob', epoch = 'e1') =>
      socket.serverSend({ type: FrameType.Message, room: ROOM, epoch, ...chat(seq, sender) }),
    clear: (sender: string) => socket.serverSend({ type: FrameType.Clear, room: ROOM, sender }),
    history: (messages: ChatMessage[], epoch = 'e1', complete = true) =>
      socket.serverSend({ type: FrameType.Message, room: ROOM, epoch, messages, complete }),
    events: () =>
      selectFeedEvents(store.getState(), ROOM).map(({ kind, name, epoch, afterSeq }) => ({
        kind,
        name,
        epoch,
        afterSeq,
      })),
  };
  room.open();
  room.presence(ME, true);
  room.history([chat(7)]);
  return room;
}

describe('feedSlice', () => {
  it('anchors a join or leave after the newest message held', () => {
    const room = settled();
    room.presence('Cy', true);
    room.message(8, 'Cy');
    room.presence('Cy', false);
    expect(room.events()).toEqual([
      { kind: 'joined', name: 'Cy', epoch: 'e1', afterSeq: 7 },
      { kind: 'left', name: 'Cy', epoch: 'e1', afterSeq: 8 },
    ]);
  });

  it('shows nothing for a leave undone before anyone said a word', () => {
    const room = settled();
    room.presence('Cy', true);
    room.message(8, 'Cy');
    room.presence('Cy', false);
    room.presence('Cy', true);
    expect(room.events()).toEqual([{ kind: 'joined', name: 'Cy', epoch: 'e1', afterSeq: 7 }]);
  });

  it('says "{old} is now {new}" for a rename, with no join or leave line for it', () => {
    const room = settled();
    room.presence('Bob', true);
    room.presence('Bobby', true, { renamed_from: 'Bob' });
    room.presence('Bob', false, { renamed_to: 'Bobby' });
    // Bobby is present now: their presence is no news.
    room.presence('Bobby', true);
    expect(room.events()).toEqual([
      { kind: 'joined', name: 'Bob', epoch: 'e1', afterSeq: 7 },
      { kind: 'renamed', name: 'Bobby', epoch: 'e1', afterSeq: 7 },
    ]);
    expect(selectFeedEvents(room.store.getState(), ROOM)[1]?.from).toBe('Bob');
    room.store.dispatch(roomForgotten({ room: ROOM }));
    expect(selectFeedEvents(room.store.getState(), ROOM)).toEqual([]);
  });

  it("adds no second line when another tab's rename is followed into a name already here", () => {
    const room = settled();
    // The first tab renamed Alice to Ali; this tab follows and is told it moved.
    room.presence('Ali', true, { renamed_from: ME });
    room.presence('Ali', true, { renamed_from: ME });
    room.presence(ME, false, { renamed_to: 'Ali' });
    expect(room.events()).toEqual([{ kind: 'renamed', name: 'Ali', epoch: 'e1', afterSeq: 7 }]);
  });

  it('ignores a presence that changes nothing, and the roster after (re)connecting', () => {
    const room = settled();
    room.presence(ME, true);
    room.presence('Zed', false);
    room.open();
    room.presence('Dee', true);
    expect(room.events()).toEqual([]);
    // The roster is complete at the first history answer: Dee's leave is news again.
    room.history([]);
    room.presence('Dee', false);
    expect(room.events()).toEqual([{ kind: 'left', name: 'Dee', epoch: 'e1', afterSeq: 7 }]);
  });

  it('keeps only "cleared by" after a clear the server announced; a local clear waits for it', () => {
    const room = settled();
    room.presence('Cy', true);
    room.store.dispatch(roomCleared({ room: ROOM, source: 'local' }));
    expect(room.events()).toHaveLength(1);
    room.clear(ME);
    expect(room.events()).toEqual([{ kind: 'cleared', name: ME, epoch: 'e1', afterSeq: null }]);
  });

  it('puts "cleared by" someone else after the messages they cleared', () => {
    const room = settled();
    room.clear('Bob');
    expect(room.events()).toEqual([{ kind: 'cleared', name: 'Bob', epoch: 'e1', afterSeq: 7 }]);
  });

  it('keeps the newest lines of a long session', () => {
    const room = settled();
    for (let i = 0; i <= FEED_EVENTS_MAX; i++) room.presence(`User ${i}`, true);
    const kept = room.events();
    expect(kept).toHaveLength(FEED_EVENTS_MAX);
    expect(kept[0]!.name).toBe('User 1');
    expect(kept.at(-1)!.name).toBe(`User ${FEED_EVENTS_MAX}`);
  });

  it('starts anchoring afresh in a new epoch', () => {
    const room = settled();
    room.open();
    room.history([], 'e2', false);
    room.presence('Cy', true);
    expect(room.events()).toEqual([{ kind: 'joined', name: 'Cy', epoch: 'e2', afterSeq: null }]);
  });

  it('makes no line of a presence action that is no news', () => {
    const state = feedSlice.reducer(
      undefined,
      presenceUpdated({ room: ROOM, sender: 'Cy', active: true }),
    );
    expect(selectFeedEvents({ feed: state }, ROOM)).toEqual([]);
  });
});
