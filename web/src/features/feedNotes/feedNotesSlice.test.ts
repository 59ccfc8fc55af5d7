import { makeStore } from '../../app/store';
import { participantRenamed, roomForgotten } from '../chat/chatActions';
import { FEED_NOTES_MAX, selectFeedNotes, withNotes } from './feedNotesSlice';

const ROOM = 'teal-otter';

describe('feed notes', () => {
  it('says "{old} is now {new}" for a rename, per room, and forgets a room left', () => {
    const store = makeStore();
    store.dispatch(participantRenamed({ room: ROOM, from: 'Bob', to: 'Bobby', time: 5000 }));
    expect(selectFeedNotes(store.getState(), ROOM)).toEqual([
      { key: expect.any(String), text: 'Bob is now Bobby', timestamp: 5 },
    ]);
    expect(selectFeedNotes(store.getState(), 'red-fox')).toEqual([]);
    store.dispatch(roomForgotten({ room: ROOM }));
    expect(selectFeedNotes(store.getState(), ROOM)).toEqual([]);
  });

  it(`keeps the last ${FEED_NOTES_MAX} notes of a room`, () => {
    const store = makeStore();
    for (let i = 0; i <= FEED_NOTES_MAX; i++) {
      store.dispatch(participantRenamed({ room: ROOM, from: `a${i}`, to: `b${i}`, time: i }));
    }
    const notes = selectFeedNotes(store.getState(), ROOM);
    expect(notes).toHaveLength(FEED_NOTES_MAX);
    expect(notes[0]?.text).toBe('a1 is now b1');
  });

  it('places each note before the first message sent after it', () => {
    const note = (timestamp: number) => ({ key: `n${timestamp}`, text: 't', timestamp });
    const messages = [{ timestamp: 1 }, { timestamp: 3 }];
    expect(withNotes(messages, [note(0), note(2), note(4)])).toEqual([
      { note: note(0) },
      { message: messages[0] },
      { note: note(2) },
      { message: messages[1] },
      { note: note(4) },
    ]);
  });
});
