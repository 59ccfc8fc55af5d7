import { authenticated, ROOM } from '../../test/openRoom';
import { memoryStorage } from '../../test/memoryStorage';
import { PROTOTYPE_ROOM_IDS } from '../../test/prototypeNames';
import { renamed } from '../features/chat/chatActions';
import { selectRoomAuth, unauthorized } from '../features/roomAuth/roomAuthSlice';
import { shareCredentialsAcrossTabs } from './sharedCredentials';
import { makeStore } from './store';
import { keyOf } from '../common/keyed';

/** A `persist:root` value holding one record for the room. */
function persisted(name: string, token: string, authenticated = true) {
  const record = { roomID: ROOM, senderName: name, token, authenticated, rejectionCount: 0 };
  return JSON.stringify({
    roomAuth: JSON.stringify({ [keyOf(ROOM)]: record }),
    _persist: JSON.stringify({ version: 1, rehydrated: true }),
  });
}

/**
 * What another tab's redux-persist writes under `persist:root`, as this tab hears of it; `was`:
 * the name the value it replaced held.
 */
function otherTabWrote(
  page: EventTarget,
  name: string,
  token: string,
  authenticated = true,
  was?: string,
) {
  const newValue = persisted(name, token, authenticated);
  const oldValue = was === undefined ? null : persisted(was, 'theirs');
  page.dispatchEvent(new StorageEvent('storage', { key: 'persist:root', newValue, oldValue }));
}

/** A tab holding Alice's token `old` for the room, listening to the other tabs. */
function tab() {
  const store = makeStore(authenticated('Alice', 'old'), { storage: memoryStorage().storage });
  const page = new EventTarget();
  const stop = shareCredentialsAcrossTabs(store, page as Window);
  const auth = () => selectRoomAuth(store.getState(), ROOM);
  return { store, page, stop, auth };
}

describe('credentials shared across tabs', () => {
  it('takes the token another tab got for the same name once its own was refused', () => {
    const { store, page, auth } = tab();
    store.dispatch(unauthorized({ room: ROOM, source: 'socket' }));
    expect(auth()).toMatchObject({ authenticated: false, token: '' });
    otherTabWrote(page, 'alice', 'fresh');
    expect(auth()).toMatchObject({ authenticated: true, token: 'fresh', senderName: 'alice' });
  });

  it('keeps an offer that came while its own token still looked good, for when it is refused', () => {
    const { store, page, auth } = tab();
    otherTabWrote(page, 'Alice', 'fresh');
    expect(auth()).toMatchObject({ token: 'old' });
    store.dispatch(unauthorized({ room: ROOM, source: 'socket' }));
    expect(auth()).toMatchObject({ authenticated: true, token: 'fresh' });
  });

  it('never takes back a token it held itself, nor another name, nor a refused record', () => {
    const { store, page, auth } = tab();
    store.dispatch(unauthorized({ room: ROOM, source: 'socket' }));
    otherTabWrote(page, 'Alice', 'old');
    otherTabWrote(page, 'Bob', 'bobs');
    otherTabWrote(page, 'Alice', '', false);
    expect(auth()).toMatchObject({ authenticated: false, token: '' });
  });

  it('follows a rename made in another tab, with its token', () => {
    const { page, auth } = tab();
    otherTabWrote(page, 'Ali', 'alis', true, 'Alice');
    expect(auth()).toMatchObject({ authenticated: true, token: 'alis', senderName: 'Ali' });
  });

  it('follows no change of another name, nor of a record it had no say in', () => {
    const { page, auth } = tab();
    otherTabWrote(page, 'Carl', 'carls', true, 'Bob');
    otherTabWrote(page, 'Dee', 'dees', false, 'Alice');
    expect(auth()).toMatchObject({ authenticated: true, token: 'old', senderName: 'Alice' });
  });

  it('takes over and follows credentials in rooms named like Object.prototype properties', () => {
    const store = makeStore(undefined, { storage: memoryStorage().storage });
    const other = makeStore(undefined, { storage: memoryStorage().storage });
    const page = new EventTarget();
    shareCredentialsAcrossTabs(store, page as Window);
    /** What the other tab's redux-persist writes, from its own state. */
    const rootValue = () =>
      JSON.stringify({
        roomAuth: JSON.stringify(other.getState().roomAuth),
        _persist: JSON.stringify({ version: 1, rehydrated: true }),
      });
    for (const room of PROTOTYPE_ROOM_IDS) {
      store.dispatch(renamed({ room, name: 'Alice', token: 'old' }));
      store.dispatch(unauthorized({ room, source: 'socket' }));
      other.dispatch(renamed({ room, name: 'Alice', token: `fresh ${room}` }));
    }
    page.dispatchEvent(
      new StorageEvent('storage', { key: 'persist:root', newValue: rootValue(), oldValue: null }),
    );
    for (const room of PROTOTYPE_ROOM_IDS) {
      expect(selectRoomAuth(store.getState(), room)).toMatchObject({
        authenticated: true,
        token: `fresh ${room}`,
      });
    }
    // A rename in the other tab is followed in every such room.
    const before = rootValue();
    for (const room of PROTOTYPE_ROOM_IDS) {
      other.dispatch(renamed({ room, name: 'Ali', token: `alis ${room}` }));
    }
    page.dispatchEvent(
      new StorageEvent('storage', { key: 'persist:root', newValue: rootValue(), oldValue: before }),
    );
    for (const room of PROTOTYPE_ROOM_IDS) {
      expect(selectRoomAuth(store.getState(), room)).toMatchObject({ senderName: 'Ali' });
    }
  });

  it('stops listening when told to', () => {
    const { store, page, stop, auth } = tab();
    stop();
    store.dispatch(unauthorized({ room: ROOM, source: 'socket' }));
    otherTabWrote(page, 'Alice', 'fresh');
    expect(auth()).toMatchObject({ authenticated: false });
  });
});
