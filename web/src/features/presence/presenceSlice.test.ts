import { makeStore } from '../../app/store';
import {
  connectionOpened,
  historyReceived,
  presenceUpdated,
  typingUpdated,
} from '../chat/chatActions';
import {
  selectActiveCount,
  selectIsPresent,
  selectParticipants,
  selectSettling,
} from './presenceSlice';

const ROOM = 'teal-otter';

describe('presence slice (spec §4 presence and typing updates)', () => {
  it('presence update sets the active flag and adds an unknown participant with typing false', () => {
    const store = makeStore();
    store.dispatch(presenceUpdated({ room: ROOM, sender: 'Bob', active: true }));
    expect(selectParticipants(store.getState(), ROOM)).toEqual([
      { name: 'Bob', active: true, typing: false, lastTypingTime: 0 },
    ]);
    store.dispatch(typingUpdated({ room: ROOM, sender: 'Bob', typing: true, time: 10 }));
    store.dispatch(presenceUpdated({ room: ROOM, sender: 'Bob', active: false }));
    expect(selectParticipants(store.getState(), ROOM)).toEqual([
      { name: 'Bob', active: false, typing: false, lastTypingTime: 10 },
    ]);
  });

  it('typing update replaces the entry with active true, the typing value and the time', () => {
    const store = makeStore();
    store.dispatch(presenceUpdated({ room: ROOM, sender: 'Bob', active: false }));
    store.dispatch(typingUpdated({ room: ROOM, sender: 'Bob', typing: true, time: 1234 }));
    store.dispatch(typingUpdated({ room: ROOM, sender: 'Cy', typing: true, time: 99 }));
    expect(selectParticipants(store.getState(), ROOM)).toEqual([
      { name: 'Bob', active: true, typing: true, lastTypingTime: 1234 },
      { name: 'Cy', active: true, typing: true, lastTypingTime: 99 },
    ]);
  });

  it('keeps participants in the order they were first heard of, per room', () => {
    const store = makeStore();
    store.dispatch(presenceUpdated({ room: ROOM, sender: 'Cy', active: true }));
    store.dispatch(typingUpdated({ room: ROOM, sender: 'Bob', typing: true, time: 1 }));
    store.dispatch(presenceUpdated({ room: ROOM, sender: 'Cy', active: false }));
    store.dispatch(presenceUpdated({ room: 'red-fox', sender: 'Dan', active: true }));
    expect(selectParticipants(store.getState(), ROOM).map((p) => p.name)).toEqual(['Cy', 'Bob']);
    expect(selectParticipants(store.getState(), 'red-fox').map((p) => p.name)).toEqual(['Dan']);
  });

  it('counts the participants present', () => {
    const store = makeStore();
    expect(selectActiveCount(store.getState(), ROOM)).toBe(0);
    store.dispatch(presenceUpdated({ room: ROOM, sender: 'Bob', active: true }));
    store.dispatch(presenceUpdated({ room: ROOM, sender: 'Cy', active: false }));
    store.dispatch(typingUpdated({ room: ROOM, sender: 'Dan', typing: false, time: 1 }));
    expect(selectActiveCount(store.getState(), ROOM)).toBe(2);
  });

  it('gives the same list while nothing changed, and an empty one for an unknown room', () => {
    const store = makeStore();
    store.dispatch(presenceUpdated({ room: ROOM, sender: 'Bob', active: true }));
    const first = selectParticipants(store.getState(), ROOM);
    store.dispatch(presenceUpdated({ room: 'red-fox', sender: 'Dan', active: true }));
    expect(selectParticipants(store.getState(), ROOM)).toBe(first);
    expect(selectParticipants(store.getState(), 'blue-owl')).toEqual([]);
  });

  it('after a reconnect, marks gone whoever the new roster does not name', () => {
    const store = makeStore();
    const history = () =>
      historyReceived({ room: ROOM, messages: [], complete: true, after: 3, me: 'Ann' });
    for (const sender of ['Ann', 'Bob', 'Cy']) {
      store.dispatch(presenceUpdated({ room: ROOM, sender, active: true }));
    }
    // Nothing is judged outside a socket's opening: a later page leaves presence alone.
    store.dispatch(history());
    expect(selectActiveCount(store.getState(), ROOM)).toBe(3);
    // Cy left while the socket was away; the roster the server sends names Ann and Bob only.
    store.dispatch(connectionOpened({ room: ROOM }));
    store.dispatch(presenceUpdated({ room: ROOM, sender: 'Ann', active: true }));
    store.dispatch(presenceUpdated({ room: ROOM, sender: 'Bob', active: true }));
    expect(selectActiveCount(store.getState(), ROOM)).toBe(3);
    store.dispatch(history());
    expect(selectParticipants(store.getState(), ROOM).map((p) => [p.name, p.active])).toEqual([
      ['Ann', true],
      ['Bob', true],
      ['Cy', false],
    ]);
    store.dispatch(presenceUpdated({ room: ROOM, sender: 'Cy', active: true }));
    store.dispatch(history());
    expect(selectActiveCount(store.getState(), ROOM)).toBe(3);
  });

  it('tells whether a name is present, by the name the frames give, and when the socket settles', () => {
    const store = makeStore();
    const history = historyReceived({
      room: ROOM,
      messages: [],
      complete: true,
      after: null,
      me: 'Ann',
    });
    expect(selectSettling(store.getState(), ROOM)).toBe(false);
    store.dispatch(connectionOpened({ room: ROOM }));
    expect(selectSettling(store.getState(), ROOM)).toBe(true);
    store.dispatch(presenceUpdated({ room: ROOM, sender: 'Bob', active: true }));
    store.dispatch(history);
    expect(selectSettling(store.getState(), ROOM)).toBe(false);
    expect(selectIsPresent(store.getState(), ROOM, 'Bob')).toBe(true);
    // Another spelling is another name on the wire (protocol §6.4): the same holder's other tab.
    expect(selectIsPresent(store.getState(), ROOM, 'bob')).toBe(false);
    store.dispatch(presenceUpdated({ room: ROOM, sender: 'Bob', active: false }));
    expect(selectIsPresent(store.getState(), ROOM, 'Bob')).toBe(false);
    expect(selectIsPresent(store.getState(), 'red-fox', 'Bob')).toBe(false);
  });
});
