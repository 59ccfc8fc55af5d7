import {
  createEntityAdapter,
  createSelector,
  createSlice,
  type EntityState,
} from '@reduxjs/toolkit';
import { type Key, type Keyed, keyOf } from '../../common/keyed';
import {
  connectionOpened,
  historyReceived,
  participantRenamed,
  participantRenamedAway,
  presenceUpdated,
  typingUpdated,
} from '../chat/chatActions';
import { selectRoomTyping, type TypingEntry } from '../typing/typingSlice';

/** A participant as spec §3 defines one: presence from this slice, typing from the typing slice. */
export interface Participant {
  name: string;
  active: boolean;
  typing: boolean;
  /** Milliseconds since the epoch of the last typing update. */
  lastTypingTime: number;
}

/** Who is in the room, in the order they were first heard of. */
export interface Presence {
  name: string;
  active: boolean;
}

const presenceAdapter = createEntityAdapter<Presence, Key>({ selectId: (p) => keyOf(p.name) });

/**
 * A room's participants, and while its socket settles (from opening until the first history
 * answer, which the server sends after the roster every joining connection gets) the names heard
 * present since it opened. The one record of who is present (by name, as the server's frames
 * say, protocol §6.4) and of the settling window: the feed's join and leave lines read them too.
 */
export type RoomPresence = EntityState<Presence, Key> & { heardSinceOpen?: string[] };

/** Room id → its participants' presence. */
export type PresenceState = Keyed<RoomPresence>;

const initialState: PresenceState = {};

function upsert(state: PresenceState, room: string, presence: Presence) {
  const key = keyOf(room);
  const current: RoomPresence = state[key] ?? presenceAdapter.getInitialState();
  if (presence.active) current.heardSinceOpen?.push(presence.name);
  state[key] = presenceAdapter.upsertOne(current, presence);
}

export const presenceSlice = createSlice({
  name: 'presence',
  initialState,
  reducers: {},
  extraReducers: (builder) => {
    builder
      .addCase(connectionOpened, (state, { payload }) => {
        (state[keyOf(payload.room)] ??= presenceAdapter.getInitialState()).heardSinceOpen = [];
      })
      .addCase(historyReceived, (state, { payload }) => {
        // The roster is complete: whoever it did not name left while this socket was away.
        const room = state[keyOf(payload.room)];
        const heard = room?.heardSinceOpen;
        if (!room || !heard) return;
        delete room.heardSinceOpen;
        for (const presence of Object.values(room.entities)) {
          if (presence.active && !heard.includes(presence.name)) presence.active = false;
        }
      })
      .addCase(presenceUpdated, (state, { payload }) => {
        upsert(state, payload.room, { name: payload.sender, active: payload.active });
      })
      .addCase(participantRenamed, (state, { payload }) => {
        upsert(state, payload.room, { name: payload.to, active: true });
      })
      .addCase(participantRenamedAway, (state, { payload }) => {
        // Not a departure: the same person is listed under the new name.
        const room = state[keyOf(payload.room)];
        if (room) presenceAdapter.removeOne(room, keyOf(payload.name));
      })
      .addCase(typingUpdated, (state, { payload }) => {
        // Whoever types is there.
        upsert(state, payload.room, { name: payload.sender, active: true });
      });
  },
});

const NO_PRESENCE = presenceAdapter.getInitialState();
const NOT_TYPING: TypingEntry = { typing: false, lastTypingTime: 0 };

type WithPresence = { presence: PresenceState };

const selectRoomPresence = (state: WithPresence, room: string) =>
  state.presence[keyOf(room)] ?? NO_PRESENCE;

/** The room's participants, each with presence and typing, in the order first heard of. */
export const selectParticipants = createSelector(
  [selectRoomPresence, selectRoomTyping],
  (presence, typing): Participant[] =>
    presenceAdapter
      .getSelectors()
      .selectAll(presence)
      .map(({ name, active }) => ({ name, active, ...(typing[keyOf(name)] ?? NOT_TYPING) })),
);

/** The names of everyone the room has heard of, present or not, in the order first heard of. */
export const selectParticipantNames = createSelector([selectRoomPresence], (presence) =>
  presenceAdapter
    .getSelectors()
    .selectAll(presence)
    .map((p) => p.name),
);

/** Whether `name` (as written) is present in the room now. */
export const selectIsPresent = (state: WithPresence, room: string, name: string) =>
  selectRoomPresence(state, room).entities[keyOf(name)]?.active === true;

/**
 * Whether the room's socket is settling: opened, and its first history answer not in yet. Its
 * presence frames are the roster every (re)joining connection gets, not people coming and going.
 */
export const selectSettling = (state: WithPresence, room: string) =>
  state.presence[keyOf(room)]?.heardSinceOpen !== undefined;

/** How many participants are present. */
export const selectActiveCount = createSelector(
  [selectRoomPresence],
  (presence) => Object.values(presence.entities).filter((p) => p.active).length,
);
