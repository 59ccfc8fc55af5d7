import { ApiPath } from '@taco/protocol';
import { http, HttpResponse } from 'msw';
import { API, server } from '../../../test/server';
import { roomsApi } from '../../api/roomsApi';
import { makeStore } from '../../app/store';
import { connectionOpened, historyReceived, roomLeft } from '../chat/chatActions';
import { SESSION_EXPIRED_MESSAGE, selectAuthError } from './authErrorsSlice';
import { unauthorized } from './roomAuthSlice';

const ROOM = 'teal-otter';

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const requestCredentials = (senderId: string) =>
  roomsApi.endpoints.requestCredentials.initiate({ room: ROOM, senderId });

describe('auth errors slice: why the username modal asks', () => {
  it('asks the user after a second socket rejection in a row', () => {
    const store = makeStore();
    store.dispatch(unauthorized({ room: ROOM, source: 'socket' }));
    expect(selectAuthError(store.getState(), ROOM)).toBeUndefined();
    store.dispatch(unauthorized({ room: ROOM, source: 'socket' }));
    expect(selectAuthError(store.getState(), ROOM)).toBe(SESSION_EXPIRED_MESSAGE);
  });

  it('counts socket rejections since a socket last got into its room, or the room was left', () => {
    const store = makeStore();
    store.dispatch(unauthorized({ room: ROOM, source: 'socket' }));
    store.dispatch(connectionOpened({ room: ROOM }));
    store.dispatch(
      historyReceived({ room: ROOM, messages: [], complete: true, after: null, me: 'Alice' }),
    );
    store.dispatch(unauthorized({ room: ROOM, source: 'socket' }));
    expect(selectAuthError(store.getState(), ROOM)).toBeUndefined();
    store.dispatch(roomLeft({ room: ROOM }));
    store.dispatch(unauthorized({ room: ROOM, source: 'socket' }));
    expect(selectAuthError(store.getState(), ROOM)).toBeUndefined();
  });

  it('counts a socket refused after it opened (the server accepts the upgrade, then closes)', () => {
    const store = makeStore();
    for (let i = 0; i < 2; i++) {
      store.dispatch(connectionOpened({ room: ROOM }));
      store.dispatch(unauthorized({ room: ROOM, source: 'socket' }));
    }
    expect(selectAuthError(store.getState(), ROOM)).toBe(SESSION_EXPIRED_MESSAGE);
  });

  it('does not count HTTP rejections as socket rejections', () => {
    const store = makeStore();
    store.dispatch(unauthorized({ room: ROOM, source: 'http' }));
    store.dispatch(unauthorized({ room: ROOM, source: 'socket' }));
    expect(selectAuthError(store.getState(), ROOM)).toBeUndefined();
  });

  it('keeps why a credential request failed, and forgets it when a new one starts or succeeds', async () => {
    const store = makeStore();
    await store.dispatch(requestCredentials('Taken'));
    expect(selectAuthError(store.getState(), ROOM)).toBe('That name is already taken in this room');
    const pending = store.dispatch(requestCredentials('Alice'));
    expect(selectAuthError(store.getState(), ROOM)).toBeUndefined();
    await pending;
    expect(selectAuthError(store.getState(), ROOM)).toBeUndefined();
  });

  it('says the session expired when the credential request gets 401', async () => {
    server.use(
      http.post(`${API}${ApiPath.roomCredentials(ROOM)}`, () =>
        HttpResponse.json(
          { statusCode: 401, error: 'Unauthorized', message: 'no' },
          { status: 401 },
        ),
      ),
    );
    const store = makeStore();
    await store.dispatch(requestCredentials('Alice'));
    expect(selectAuthError(store.getState(), ROOM)).toBe(SESSION_EXPIRED_MESSAGE);
  });

  it('keeps errors per room', () => {
    const store = makeStore();
    store.dispatch(unauthorized({ room: ROOM, source: 'socket' }));
    store.dispatch(unauthorized({ room: ROOM, source: 'socket' }));
    expect(selectAuthError(store.getState(), 'red-fox')).toBeUndefined();
  });
});
