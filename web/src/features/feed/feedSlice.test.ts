import {
  connectionOpened,
  historyReceived,
  messageReceived,
  participantRenamed,
  participantRenamedAway,
  presenceUpdated,
  roomCleared,
  roomForgotten,
} from '../chat/chatActions';
import { FEED_EVENTS_MAX, feedSlice, type FeedState, selectFeedEvents } from './feedSlice';

const ROOM = 'teal-otter';
const reduce = feedSlice.reducer;

function settled(): FeedState {
  let state = reduce(undefined, connectionOpened({ room: ROOM }));
  state = reduce(state, presenceUpdated({ room: ROOM, sender: 'Alice', active: true }));
  return reduce(
    state,
    historyReceived({
      room: ROOM,
      messages: [{ sender: 'Bob', body: 'hi', timestamp: 1, seq: 7 }],
      complete: true,
      after: null,
      me: 'Alice',
      epoch: 'e1',
    }),
  );
}

const events = (state: FeedState) =>
  selectFeedEvents({ feed: state }, ROOM).map(({ kind, name, epoch, afterSeq }) => ({
    kind,
    name,
    epoch,
    afterSeq,
  }));

describe('feedSlice', () => {
  it('anchors a join or leave after the newest message held', () => {
    let state = settled();
    state = reduce(state, presenceUpdated({ room: ROOM, sender: 'Cy', active: true }));
    state = reduce(
      state,
      messageReceived({
        room: ROOM,
        message: { sender: 'Cy', body: 'yo', timestamp: 2, seq: 8 },
        clientId: null,
        own: false,
        epoch: 'e1',
      }),
    );
    state = reduce(state, presenceUpdated({ room: ROOM, sender: 'cy', active: false }));
    expect(events(state)).toEqual([
      { kind: 'joined', name: 'Cy', epoch: 'e1', afterSeq: 7 },
      { kind: 'left', name: 'cy', epoch: 'e1', afterSeq: 8 },
    ]);
  });

  it('says "{old} is now {new}" for a rename, with no join or leave line for it', () => {
    let state = settled();
    state = reduce(state, presenceUpdated({ room: ROOM, sender: 'Bob', active: true }));
    state = reduce(state, participantRenamed({ room: ROOM, from: 'Bob', to: 'Bobby', time: 5 }));
    state = reduce(state, participantRenamedAway({ room: ROOM, name: 'Bob', to: 'Bobby' }));
    // Bobby is present now: their presence is no news.
    state = reduce(state, presenceUpdated({ room: ROOM, sender: 'Bobby', active: true }));
    expect(events(state)).toEqual([
      { kind: 'joined', name: 'Bob', epoch: 'e1', afterSeq: 7 },
      { kind: 'renamed', name: 'Bobby', epoch: 'e1', afterSeq: 7 },
    ]);
    expect(selectFeedEvents({ feed: state }, ROOM)[1]?.from).toBe('Bob');
    state = reduce(state, roomForgotten({ room: ROOM }));
    expect(selectFeedEvents({ feed: state }, ROOM)).toEqual([]);
  });

  it("adds no second line when another tab's rename is followed into a name already here", () => {
    let state = settled();
    // The first tab renamed Alice to Ali; this tab follows and is told it moved.
    state = reduce(state, participantRenamed({ room: ROOM, from: 'Alice', to: 'Ali', time: 5 }));
    state = reduce(state, participantRenamed({ room: ROOM, from: 'Alice', to: 'Ali', time: 6 }));
    state = reduce(state, participantRenamedAway({ room: ROOM, name: 'Alice', to: 'Ali' }));
    expect(events(state)).toEqual([{ kind: 'renamed', name: 'Ali', epoch: 'e1', afterSeq: 7 }]);
  });

  it('ignores a presence that changes nothing, and the roster after (re)connecting', () => {
    let state = settled();
    state = reduce(state, presenceUpdated({ room: ROOM, sender: 'Alice', active: true }));
    state = reduce(state, presenceUpdated({ room: ROOM, sender: 'Zed', active: false }));
    state = reduce(state, connectionOpened({ room: ROOM }));
    state = reduce(state, presenceUpdated({ room: ROOM, sender: 'Dee', active: true }));
    expect(events(state)).toEqual([]);
  });

  it('keeps only "cleared by" after a clear the server announced; a local clear waits for it', () => {
    let state = settled();
    state = reduce(state, presenceUpdated({ room: ROOM, sender: 'Cy', active: true }));
    state = reduce(state, roomCleared({ room: ROOM, source: 'local' }));
    expect(events(state)).toHaveLength(1);
    state = reduce(state, roomCleared({ room: ROOM, source: 'remote', sender: 'Alice' }));
    expect(events(state)).toEqual([{ kind: 'cleared', name: 'Alice', epoch: 'e1', afterSeq: 7 }]);
  });

  it('keeps the newest lines of a long session', () => {
    let state = settled();
    for (let i = 0; i <= FEED_EVENTS_MAX; i++) {
      state = reduce(state, presenceUpdated({ room: ROOM, sender: `User ${i}`, active: true }));
    }
    const kept = events(state);
    expect(kept).toHaveLength(FEED_EVENTS_MAX);
    expect(kept[0]!.name).toBe('User 1');
    expect(kept.at(-1)!.name).toBe(`User ${FEED_EVENTS_MAX}`);
  });

  it('starts anchoring afresh in a new epoch', () => {
    let state = settled();
    state = reduce(
      state,
      historyReceived({
        room: ROOM,
        messages: [],
        complete: false,
        after: 7,
        me: 'Alice',
        epoch: 'e2',
      }),
    );
    state = reduce(state, presenceUpdated({ room: ROOM, sender: 'Cy', active: true }));
    expect(events(state)).toEqual([{ kind: 'joined', name: 'Cy', epoch: 'e2', afterSeq: null }]);
  });
});
