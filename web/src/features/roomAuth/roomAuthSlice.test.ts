import { ApiPath } from '@taco/protocol';
import { http, HttpResponse } from 'msw';
import { fakeSocketDeps } from '../../../test/fakeSocket';
import { server, API } from '../../../test/server';
import { makeStore } from '../../app/store';
import { roomsApi } from '../../api/roomsApi';
import { renamed, roomCreated, roomForgotten, roomJoined } from '../chat/chatActions';
import { selectAuthError } from './authErrorsSlice';
import {
  FORMER_NAMES_MAX,
  RECENT_ROOMS_MAX,
  selectRecentRooms,
  selectRoomAuth,
  unauthorized,
} from './roomAuthSlice';
import { keyOf } from '../../common/keyed';

const ROOM = 'teal-otter';

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

describe('room authentication (spec §4)', () => {
  it('a new room starts unauthenticated with rejectionCount 0', () => {
    const store = makeStore();
    store.dispatch(roomCreated({ room: ROOM }));
    expect(selectRoomAuth(store.getState(), ROOM)).toEqual({
      roomID: ROOM,
      senderName: '',
      token: '',
      authenticated: false,
      rejectionCount: 0,
    });
  });

  it('a successful credential load sets the name and token, authenticates and resets rejections', async () => {
    const store = makeStore({
      roomAuth: {
        [keyOf(ROOM)]: {
          roomID: ROOM,
          senderName: '',
          token: '',
          authenticated: false,
          rejectionCount: 2,
        },
      },
    });
    await store.dispatch(
      roomsApi.endpoints.requestCredentials.initiate({ room: ROOM, senderId: ' Alice ' }),
    );
    expect(selectRoomAuth(store.getState(), ROOM)).toEqual({
      roomID: ROOM,
      senderName: 'Alice',
      token: 'token-Alice',
      authenticated: true,
      rejectionCount: 0,
    });
  });

  it('room creation authenticates the creator', async () => {
    const store = makeStore();
    await store.dispatch(
      roomsApi.endpoints.createRoom.initiate({ room_id: ROOM, sender: 'Alice' }),
    );
    expect(selectRoomAuth(store.getState(), ROOM)).toMatchObject({
      senderName: 'Alice',
      token: 'token-Alice',
      authenticated: true,
      rejectionCount: 0,
    });
  });

  it('a 401 on the credential load clears the token and counts a rejection', async () => {
    server.use(
      http.post(`${API}${ApiPath.roomCredentials(ROOM)}`, () =>
        HttpResponse.json(
          { statusCode: 401, error: 'Unauthorized', message: 'no' },
          { status: 401 },
        ),
      ),
    );
    const store = makeStore({
      roomAuth: {
        [keyOf(ROOM)]: {
          roomID: ROOM,
          senderName: 'A',
          token: 't',
          authenticated: true,
          rejectionCount: 0,
        },
      },
    });
    await store.dispatch(
      roomsApi.endpoints.requestCredentials.initiate({ room: ROOM, senderId: 'Alice' }),
    );
    expect(selectRoomAuth(store.getState(), ROOM)).toMatchObject({
      token: '',
      authenticated: false,
      rejectionCount: 1,
    });
  });

  it('a taken name (409) keeps the state and records the reason for the modal', async () => {
    const store = makeStore();
    store.dispatch(roomCreated({ room: ROOM }));
    const result = await store.dispatch(
      roomsApi.endpoints.requestCredentials.initiate({ room: ROOM, senderId: 'Taken' }),
    );
    expect(result.error).toMatchObject({ status: 409 });
    expect(selectRoomAuth(store.getState(), ROOM)).toMatchObject({
      authenticated: false,
      rejectionCount: 0,
    });
    expect(selectAuthError(store.getState(), ROOM)).toBe('That name is already taken in this room');
  });

  it('an authorization rejection from the socket counts a rejection and clears the token', () => {
    const store = makeStore({
      roomAuth: {
        [keyOf(ROOM)]: {
          roomID: ROOM,
          senderName: 'A',
          token: 't',
          authenticated: true,
          rejectionCount: 0,
        },
      },
    });
    store.dispatch(unauthorized({ room: ROOM, source: 'socket' }));
    store.dispatch(unauthorized({ room: ROOM, source: 'socket' }));
    expect(selectRoomAuth(store.getState(), ROOM)).toEqual({
      roomID: ROOM,
      senderName: 'A',
      token: '',
      authenticated: false,
      rejectionCount: 2,
    });
  });
});

describe('rooms you were in', () => {
  const record = (room: string, senderName: string) => ({
    roomID: room,
    senderName,
    token: `t-${room}`,
    authenticated: true,
    rejectionCount: 0,
  });

  it('lists the rooms with a name, the last joined first, and forgets a room left', () => {
    const sockets = fakeSocketDeps();
    const roomAuth = {
      [keyOf('teal-otter')]: record('teal-otter', 'Ann'),
      [keyOf('red-fox')]: record('red-fox', 'Bob'),
      [keyOf('no-name')]: record('no-name', ''),
    };
    const store = makeStore({ roomAuth }, { socket: sockets.deps });
    expect(selectRecentRooms(store.getState())).toEqual([
      { room: 'red-fox', name: 'Bob' },
      { room: 'teal-otter', name: 'Ann' },
    ]);
    store.dispatch(roomJoined({ room: 'teal-otter', token: 't-teal-otter' }));
    expect(selectRecentRooms(store.getState()).map((r) => r.room)).toEqual([
      'teal-otter',
      'red-fox',
    ]);
    expect(sockets.last().url).toContain('/api/room/teal-otter/ws');
    store.dispatch(roomForgotten({ room: 'teal-otter' }));
    expect(selectRoomAuth(store.getState(), 'teal-otter')).toBeUndefined();
    expect(selectRecentRooms(store.getState()).map((r) => r.room)).toEqual(['red-fox']);
  });

  it('keeps the order rooms were joined in, for a room id that looks like a number too', () => {
    const store = makeStore();
    for (const room of ['teal-otter', '2024', 'red-fox']) {
      store.dispatch(renamed({ room, name: 'Ann', token: `t-${room}` }));
    }
    expect(selectRecentRooms(store.getState()).map((r) => r.room)).toEqual([
      'red-fox',
      '2024',
      'teal-otter',
    ]);
  });

  it('keeps at most RECENT_ROOMS_MAX rooms in the list', () => {
    const roomAuth = Object.fromEntries(
      Array.from({ length: RECENT_ROOMS_MAX + 3 }, (_, i) => [
        keyOf(`room-${i}`),
        record(`room-${i}`, 'Ann'),
      ]),
    );
    const store = makeStore({ roomAuth });
    expect(selectRecentRooms(store.getState())).toHaveLength(RECENT_ROOMS_MAX);
    expect(selectRecentRooms(store.getState())[0]?.room).toBe(`room-${RECENT_ROOMS_MAX + 2}`);
  });

  it('a confirmed rename makes the new name and token the credential', () => {
    const store = makeStore({ roomAuth: { [keyOf(ROOM)]: record(ROOM, 'Ann') } });
    store.dispatch(renamed({ room: ROOM, name: 'Annie', token: 'new-token' }));
    expect(selectRoomAuth(store.getState(), ROOM)).toEqual({
      ...record(ROOM, 'Annie'),
      token: 'new-token',
    });
  });

  it('remembers the names left by renaming, of the current epoch, at most FORMER_NAMES_MAX', () => {
    const store = makeStore({ roomAuth: { [keyOf(ROOM)]: record(ROOM, 'Ann') } });
    const rename = (from: string, to: string, epoch: string, upToSeq: number) =>
      store.dispatch(
        renamed({ room: ROOM, name: to, token: `t-${to}`, former: { name: from, epoch, upToSeq } }),
      );
    rename('Ann', 'Annie', 'e1', 4);
    rename('Annie', 'Anna', 'e2', 1);
    expect(selectRoomAuth(store.getState(), ROOM)?.formerNames).toEqual([
      { name: 'Annie', epoch: 'e2', upToSeq: 1 },
    ]);
    for (let i = 0; i < FORMER_NAMES_MAX + 2; i++) rename(`N${i}`, `N${i + 1}`, 'e2', 10 + i);
    const kept = selectRoomAuth(store.getState(), ROOM)?.formerNames ?? [];
    expect(kept).toHaveLength(FORMER_NAMES_MAX);
    expect(kept.at(-1)).toEqual({
      name: `N${FORMER_NAMES_MAX + 1}`,
      epoch: 'e2',
      upToSeq: 11 + FORMER_NAMES_MAX,
    });
  });
});
