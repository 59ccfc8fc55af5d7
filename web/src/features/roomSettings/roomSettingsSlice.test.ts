import { makeStore } from '../../app/store';
import { roomsApi } from '../../api/roomsApi';
import { roomForgotten, roomFrameReceived } from '../chat/chatActions';
import { disappearLabel, durationText } from './durations';
import {
  PLAIN_ROOM,
  roomSettingsSlice,
  selectRoomSettings,
  selectSettingsKnown,
} from './roomSettingsSlice';

const ROOM = 'teal-otter';
const SETTINGS = {
  encrypted: true,
  key_check: 'kCkgsYkkv54-WIGsWY4ydg',
  locked: true,
  disappear_after: 3600,
  disappear_choices: [0, 3600, 86400, 604800],
};
const reduce = roomSettingsSlice.reducer;
const fulfilled = (endpoint: 'roomInfo' | 'createRoom' | 'requestCredentials', payload: unknown) =>
  ({
    type: endpoint === 'roomInfo' ? 'api/executeQuery/fulfilled' : 'api/executeMutation/fulfilled',
    payload,
    meta: {
      arg: { endpointName: endpoint, type: endpoint === 'roomInfo' ? 'query' : 'mutation' },
      requestStatus: 'fulfilled',
    },
  }) as unknown as Parameters<typeof reduce>[1];

describe('room settings', () => {
  it('are a plain room until told otherwise', () => {
    const store = makeStore();
    expect(selectRoomSettings(store.getState(), ROOM)).toEqual(PLAIN_ROOM);
    expect(selectSettingsKnown(store.getState(), ROOM)).toBe(false);
  });

  it('come from the room frame, creator and all', () => {
    const state = reduce(
      undefined,
      roomFrameReceived({
        room: ROOM,
        encrypted: false,
        locked: true,
        disappearAfter: 60,
        creator: 'Ana',
        isCreator: true,
        time: 0,
        feedAt: { epoch: null, seq: null },
      }),
    );
    expect(selectRoomSettings({ roomSettings: state }, ROOM)).toMatchObject({
      locked: true,
      disappearAfter: 60,
      creator: 'Ana',
      isCreator: true,
    });
    expect(reduce(state, roomForgotten({ room: ROOM }))).toEqual({});
  });

  it('take the key check from the room frame over an older answer, and keep it when not told', () => {
    const frame = (keyCheck?: string | null) =>
      roomFrameReceived({
        room: ROOM,
        encrypted: true,
        ...(keyCheck !== undefined ? { keyCheck } : {}),
        locked: false,
        disappearAfter: 0,
        creator: null,
        isCreator: false,
        time: 0,
        feedAt: { epoch: null, seq: null },
      });
    const store = makeStore();
    store.dispatch(
      fulfilled('roomInfo', {
        room_id: ROOM,
        participants: 1,
        settings: { ...SETTINGS, encrypted: false, key_check: null },
      }),
    );
    store.dispatch(frame('v7jdDV9n7s4cExpZyQxdzg'));
    expect(selectRoomSettings(store.getState(), ROOM)).toMatchObject({
      encrypted: true,
      keyCheck: 'v7jdDV9n7s4cExpZyQxdzg',
    });
    store.dispatch(frame());
    expect(selectRoomSettings(store.getState(), ROOM).keyCheck).toBe('v7jdDV9n7s4cExpZyQxdzg');
  });

  it('come from the HTTP answers: the room info, and the creation with its creator right', () => {
    const store = makeStore();
    const matchInfo = roomsApi.endpoints.roomInfo.matchFulfilled;
    const info = fulfilled('roomInfo', { room_id: ROOM, participants: 1, settings: SETTINGS });
    expect(matchInfo(info)).toBe(true);
    store.dispatch(info);
    expect(selectRoomSettings(store.getState(), ROOM)).toMatchObject({
      encrypted: true,
      keyCheck: SETTINGS.key_check,
      locked: true,
      disappearAfter: 3600,
      choices: SETTINGS.disappear_choices,
      isCreator: false,
    });
    store.dispatch(
      fulfilled('createRoom', {
        name: 'Ana',
        room: ROOM,
        token: 't',
        creator: true,
        settings: { ...SETTINGS, locked: false, creator: 'Ana' },
      }),
    );
    expect(selectRoomSettings(store.getState(), ROOM)).toMatchObject({
      locked: false,
      creator: 'Ana',
      isCreator: true,
    });
  });

  it('take a room that does not exist as plain, and ignore an answer without settings', () => {
    const store = makeStore();
    store.dispatch(fulfilled('roomInfo', { room_id: ROOM, participants: 0 }));
    expect(selectSettingsKnown(store.getState(), ROOM)).toBe(false);
    store.dispatch(fulfilled('roomInfo', { room_id: ROOM, participants: 0, settings: null }));
    expect(selectSettingsKnown(store.getState(), ROOM)).toBe(true);
    expect(selectRoomSettings(store.getState(), ROOM).encrypted).toBe(false);
  });
});

describe('durations', () => {
  it('spell out the disappearing choices', () => {
    expect([0, 60, 3600, 86400, 604800, 7200, 90].map(disappearLabel)).toEqual([
      'Off',
      '1 minute',
      '1 hour',
      '1 day',
      '7 days',
      '2 hours',
      '90 seconds',
    ]);
    expect(durationText(1)).toBe('1 second');
  });
});
