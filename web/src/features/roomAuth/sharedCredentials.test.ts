import { authenticated, ROOM } from '../../../test/openRoom';
import { memoryStorage } from '../../../test/memoryStorage';
import { PROTOTYPE_ROOM_IDS } from '../../../test/prototypeNames';
import { renamed } from '../chat/chatActions';
import { nameRefused, selectRoomAuth, unauthorized } from './roomAuthSlice';
import { shareCredentialsAcrossTabs, type TabChannel } from './sharedCredentials';
import { makeStore } from '../../app/store';
import { keyOf } from '../../common/keyed';

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

/** Tabs' channels that deliver each message to every other channel made by the same `tabChannels`. */
function tabChannels() {
  const channels: (EventTarget & TabChannel)[] = [];
  return () => {
    const channel = Object.assign(new EventTarget(), {
      postMessage(data: unknown) {
        for (const other of channels) {
          if (other !== channel) other.dispatchEvent(new MessageEvent('message', { data }));
        }
      },
      close() {
        channels.splice(channels.indexOf(channel), 1);
      },
    });
    channels.push(channel);
    return channel;
  };
}

/** A tab holding Alice's token `token` for the room, listening to the other tabs. */
function tab(channel: TabChannel | null = null, token = 'old') {
  const store = makeStore(authenticated('Alice', token), { storage: memoryStorage().storage });
  const page = new EventTarget();
  const stop = shareCredentialsAcrossTabs(store, page as Window, channel);
  const auth = () => selectRoomAuth(store.getState(), ROOM);
  return { store, page, stop, auth };
}

describe('credentials shared across tabs', () => {
  it('asks the other tabs when refused its name (4409), and takes the token the tab holding it has', () => {
    // Two tabs asked for new credentials at once (after a restart): each got its own token, the
    // first connected, the second's socket is refused the name the first one holds.
    const channel = tabChannels();
    const first = tab(channel(), 'first');
    const second = tab(channel(), 'second');
    const third = tab(channel(), 'third');
    third.store.dispatch(unauthorized({ room: ROOM, source: 'socket' }));
    second.store.dispatch(nameRefused({ room: ROOM }));
    // Both the first tab and the third (now holding the first's) answer with the same token.
    expect(second.auth()).toMatchObject({ authenticated: true, token: 'first' });
    expect(third.auth()).toMatchObject({ authenticated: true, token: 'first' });
    expect(first.auth()).toMatchObject({ authenticated: true, token: 'first' });
    // Refused that one too (someone else holds the name): no tab offers it back to it.
    second.store.dispatch(nameRefused({ room: ROOM }));
    expect(second.auth()).toMatchObject({ authenticated: false, token: '' });
  });

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
    shareCredentialsAcrossTabs(store, page as Window, null);
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
