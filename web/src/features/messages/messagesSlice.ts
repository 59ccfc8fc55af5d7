import {
  createEntityAdapter,
  createSelector,
  createSlice,
  type EntityState,
  isAnyOf,
} from '@reduxjs/toolkit';
import { ErrorCode, isSameUserName } from '@taco/protocol';
import { roomsApi } from '../../api/roomsApi';
import { type Key, type Keyed, keyOf } from '../../common/keyed';
import {
  errorFrameReceived,
  type FormerName,
  historyReceived,
  messageFailed,
  messageReceived,
  messageRetried,
  messageSealed,
  messageSent,
  messagesExpired,
  type ReceivedMessage,
  roomCleared,
  roomCreated,
  roomEntered,
  roomForgotten,
  roomJoined,
  type MessagePoint,
} from '../chat/chatActions';

export type MessageStatus = 'pending' | 'sent' | 'failed';

/** A message as the feed shows it (spec §3's fields, and how far it got). */
export interface Message {
  /** Unique within the room: from the server's `seq`, or from the local `client_id` until then. */
  key: string;
  /**
   * 0 for an own message, otherwise the sender's name (the spec's field): whether a message is
   * the user's is decided here once, when it is stored (`isOwnMessage`), and read with `isOwn`.
   */
  id: 0 | string;
  message: string;
  senderName: string;
  /** Unix time in seconds. */
  timestamp: number;
  seq: number | null;
  clientId: string | null;
  status: MessageStatus;
  source: 'local' | 'remote';
  /** An end-to-end encrypted body that did not open with the room's key: `message` is empty. */
  undecryptable?: true;
}

/** A message the server stored: it has a `seq` in the room's epoch. */
export type StoredMessage = Message & { seq: number; status: 'sent' };

/** An own message the server has not confirmed: pending, or failed until the user retries. */
export type UnsentMessage = Message & {
  seq: null;
  clientId: string;
  source: 'local';
  /** In an end-to-end encrypted room, the encrypted body that goes out (once sealed). */
  wire?: string;
};

const storedAdapter = createEntityAdapter<StoredMessage, number>({
  selectId: (m) => m.seq,
  sortComparer: (a, b) => a.seq - b.seq,
});

/** Kept in the order they were sent (or retried). */
const unsentAdapter = createEntityAdapter<UnsentMessage, Key>({
  selectId: (m) => keyOf(m.clientId),
});

/** A room's messages: the spec's chat room record, with what resuming history needs. */
export interface RoomMessages {
  name: string;
  /** Stored messages by `seq`, all of one epoch. */
  stored: EntityState<StoredMessage, number>;
  /** Own messages waiting for the server, by `client_id`. */
  unsent: EntityState<UnsentMessage, Key>;
  /** The room's epoch that `resumeAfter` and the stored messages' `seq`s belong to. */
  epoch: string | null;
  /**
   * Where a resume picks up after a reconnect: every message of the epoch from where history
   * started up to this `seq` is held (or was cleared). It moves only over messages that follow
   * it without a gap, so a live message that overtakes a history answer cannot make a resume skip
   * what the answer was to bring. `null`: nothing to resume after (ask for the latest).
   */
  resumeAfter: number | null;
  /**
   * A history answer came: from then on the live messages follow what is held, so one after a
   * `null` resume point (an empty room, a clear, a new epoch) starts it. Before the first answer
   * a live message says nothing about what came before it.
   */
  historyLoaded: boolean;
  /** Earlier messages were trimmed or cleared while this client was away. */
  earlierMissing: boolean;
}

/** Room id → its messages. */
export type MessagesState = Keyed<RoomMessages>;

const initialState: MessagesState = {};

function emptyRoom(name: string): RoomMessages {
  return {
    name,
    stored: storedAdapter.getInitialState(),
    unsent: unsentAdapter.getInitialState(),
    epoch: null,
    resumeAfter: null,
    historyLoaded: false,
    earlierMissing: false,
  };
}

function ensureRoom(state: MessagesState, room: string): RoomMessages {
  return (state[keyOf(room)] ??= emptyRoom(room));
}

/** Whether a stored message was the user's: sent under the current name, or a former one then. */
export function isOwnMessage(
  message: { sender: string; seq: number },
  epoch: string | undefined,
  me: string,
  formerNames: readonly FormerName[] = [],
): boolean {
  if (isSameUserName(message.sender, me)) return true;
  return formerNames.some(
    (former) =>
      former.epoch === epoch &&
      message.seq <= former.upToSeq &&
      isSameUserName(message.sender, former.name),
  );
}

/** Whether a message of the feed is the user's own (sent from here, or decided when stored). */
export function isOwn(message: Message): boolean {
  return message.id === 0;
}

function storedMessage(message: ReceivedMessage, own: boolean, clientId: string | null) {
  const stored: StoredMessage = {
    key: `s${message.seq}:${message.timestamp}:${message.sender}`,
    id: own ? 0 : message.sender,
    message: message.body,
    senderName: message.sender,
    timestamp: message.timestamp,
    seq: message.seq,
    clientId,
    status: 'sent',
    source: 'remote',
  };
  if (message.undecryptable === true) stored.undecryptable = true;
  return stored;
}

/** Moves the resume point over the held messages that follow it without a gap. */
function advanceResume(room: RoomMessages) {
  if (!room.historyLoaded) return;
  if (room.resumeAfter === null) {
    const first = room.stored.ids[0];
    if (first === undefined) return;
    room.resumeAfter = first;
  }
  while (room.stored.entities[room.resumeAfter + 1]) room.resumeAfter++;
}

/**
 * Takes the room's epoch from a frame. A different one means the room's `seq` started again:
 * the stored messages held belong to the old numbering and go, like after `complete: false`.
 * Returns whether it changed.
 */
function adoptEpoch(room: RoomMessages, epoch: string | undefined): boolean {
  if (epoch === undefined || room.epoch === epoch) return false;
  const changed = room.epoch !== null;
  room.epoch = epoch;
  if (changed) {
    storedAdapter.removeAll(room.stored);
    room.resumeAfter = null;
    room.earlierMissing = true;
  }
  return changed;
}

/**
 * Drops the stored messages an answer replaces: all up to the newest it carries (or up to its
 * `after`). Live messages that arrived after the request was sent are newer: they stay.
 */
function dropReplaced(room: RoomMessages, newest: number) {
  storedAdapter.removeMany(
    room.stored,
    room.stored.ids.filter((seq) => seq <= newest),
  );
}

/** Removes and returns the first unsent own message with this body, if any. */
function takeUnsent(room: RoomMessages, body: string): UnsentMessage | undefined {
  const id = room.unsent.ids.find((key) => room.unsent.entities[key]?.message === body);
  if (id === undefined) return undefined;
  const message = room.unsent.entities[id];
  unsentAdapter.removeOne(room.unsent, id);
  return message;
}

export const messagesSlice = createSlice({
  name: 'messages',
  initialState,
  reducers: {},
  extraReducers: (builder) => {
    builder
      .addCase(messageReceived, (state, action) => {
        const { message, clientId, me, formerNames, epoch } = action.payload;
        const room = ensureRoom(state, action.payload.room);
        adoptEpoch(room, epoch);
        if (room.stored.entities[message.seq]) return;
        if (clientId !== null) unsentAdapter.removeOne(room.unsent, keyOf(clientId));
        const own = isOwnMessage(message, room.epoch ?? undefined, me, formerNames);
        storedAdapter.addOne(room.stored, storedMessage(message, own, clientId));
        advanceResume(room);
      })
      .addCase(historyReceived, (state, action) => {
        const { messages, complete, after, me, formerNames, epoch } = action.payload;
        const room = ensureRoom(state, action.payload.room);
        const epochChanged = adoptEpoch(room, epoch);
        const newest = messages.reduce<number | null>(
          (max, m) => Math.max(max ?? m.seq, m.seq),
          null,
        );
        if (after === null || !complete || epochChanged) {
          dropReplaced(room, Math.max(newest ?? -1, after ?? -1));
          room.resumeAfter = newest;
        } else if (newest !== null && (room.resumeAfter === null || newest > room.resumeAfter)) {
          // A resume's answer holds every message after `after` up to its newest.
          room.resumeAfter = newest;
        }
        if (after !== null && !complete) room.earlierMissing = true;
        for (const item of messages) {
          if (room.stored.entities[item.seq]) continue;
          const own = isOwnMessage(item, room.epoch ?? undefined, me, formerNames);
          // An own message sent before a drop may be stored without its echo ever arriving.
          const unsent = own ? takeUnsent(room, item.body) : undefined;
          storedAdapter.addOne(room.stored, storedMessage(item, own, unsent?.clientId ?? null));
        }
        room.historyLoaded = true;
        advanceResume(room);
      })
      .addCase(messageSent, (state, action) => {
        const { clientId, body, senderName, timestamp } = action.payload;
        unsentAdapter.addOne(ensureRoom(state, action.payload.room).unsent, {
          key: `c${clientId}`,
          id: 0,
          message: body,
          senderName,
          timestamp,
          seq: null,
          clientId,
          status: 'pending',
          source: 'local',
        });
      })
      .addCase(errorFrameReceived, (state, { payload: { room, clientId, code } }) => {
        // An error naming an own message means the server did not store it; one refused as
        // rate limited stays pending: the socket sends it again once the limit allows.
        const unsent = state[keyOf(room)]?.unsent;
        if (unsent && clientId !== null && code !== ErrorCode.RateLimited) {
          unsentAdapter.updateOne(unsent, { id: keyOf(clientId), changes: { status: 'failed' } });
        }
      })
      .addCase(messageFailed, (state, { payload: { room, clientId } }) => {
        const unsent = state[keyOf(room)]?.unsent;
        if (unsent)
          unsentAdapter.updateOne(unsent, { id: keyOf(clientId), changes: { status: 'failed' } });
      })
      .addCase(messageRetried, (state, action) => {
        // A retried message goes to the end, pending again.
        const unsent = state[keyOf(action.payload.room)]?.unsent;
        const message = unsent?.entities[keyOf(action.payload.clientId)];
        if (!unsent || message?.status !== 'failed') return;
        unsentAdapter.removeOne(unsent, keyOf(message.clientId));
        unsentAdapter.addOne(unsent, { ...message, status: 'pending' });
      })
      .addCase(messageSealed, (state, { payload: { room, clientId, wire } }) => {
        const unsent = state[keyOf(room)]?.unsent;
        if (unsent) unsentAdapter.updateOne(unsent, { id: keyOf(clientId), changes: { wire } });
      })
      .addCase(messagesExpired, (state, { payload }) => {
        // Gone from view; the resume point stays where it was: the server has dropped them too.
        const room = state[keyOf(payload.room)];
        if (!room) return;
        storedAdapter.removeMany(
          room.stored,
          Object.values(room.stored.entities)
            .filter((m) => m.timestamp <= payload.before)
            .map((m) => m.seq),
        );
      })
      .addCase(roomForgotten, (state, action) => {
        delete state[keyOf(action.payload.room)];
      })
      .addCase(roomCleared, (state, action) => {
        const room = ensureRoom(state, action.payload.room);
        storedAdapter.removeAll(room.stored);
        unsentAdapter.removeAll(room.unsent);
        room.earlierMissing = false;
        // Nothing held to resume after: a reconnect asks for the room's latest messages, and the
        // server, which answers a resume from the clear as incomplete, has nothing to say.
        room.resumeAfter = null;
      })
      .addMatcher(
        isAnyOf(roomCreated, roomEntered, roomJoined, roomsApi.endpoints.createRoom.matchFulfilled),
        (state, action) => {
          ensureRoom(state, action.payload.room);
        },
      );
  },
});

type WithMessages = { messages: MessagesState };

const NO_ROOM = emptyRoom('');
const storedSelectors = storedAdapter.getSelectors();
const unsentSelectors = unsentAdapter.getSelectors();

const selectRoom = (state: WithMessages, room: string) => state.messages[keyOf(room)] ?? NO_ROOM;

/** Whether this device knows the room (the room page creates it otherwise). */
export const selectRoomKnown = (state: WithMessages, room: string) =>
  state.messages[keyOf(room)] !== undefined;

/** The feed: stored messages in `seq` order, then own messages not stored yet. */
export const selectMessages = createSelector(
  [(state: WithMessages, room: string) => selectRoom(state, room)],
  (room): Message[] => [
    ...storedSelectors.selectAll(room.stored),
    ...unsentSelectors.selectAll(room.unsent),
  ],
);

/** Own messages waiting to be sent (not those that failed), in order. */
export const selectPendingMessages = createSelector(
  [(state: WithMessages, room: string) => selectRoom(state, room).unsent],
  (unsent) => unsentSelectors.selectAll(unsent).filter((m) => m.status === 'pending'),
);

/** The oldest stored message's time (Unix seconds): the next to disappear; null when none. */
export const selectOldestTimestamp = (state: WithMessages, room: string): number | null => {
  const { ids, entities } = selectRoom(state, room).stored;
  return ids.length === 0 ? null : entities[ids[0]!]!.timestamp;
};

/** An own message not stored yet, by its `client_id`. */
export const selectUnsentMessage = (state: WithMessages, room: string, clientId: string) =>
  selectRoom(state, room).unsent.entities[keyOf(clientId)];

/**
 * Where a history request resumes (`resumeAfter`, in its epoch): the one resume point, which the
 * socket asks history after on every open and for each next page.
 */
export const selectResumePoint = createSelector(
  [
    (state: WithMessages, room: string) => selectRoom(state, room).resumeAfter,
    (state: WithMessages, room: string) => selectRoom(state, room).epoch,
  ],
  (after, epoch) => ({ after, epoch }),
);

/**
 * The newest message held, in its epoch: where the user has read up to, where a feed line that
 * happens now goes, and what a name left by renaming covers. Derived from the stored messages.
 */
export const selectNewestHeld = createSelector(
  [
    (state: WithMessages, room: string) => selectRoom(state, room).stored.ids.at(-1) ?? null,
    (state: WithMessages, room: string) => selectRoom(state, room).epoch,
  ],
  (seq, epoch): MessagePoint => ({ epoch, seq }),
);

/** A stored message by its `seq` in the room's epoch. */
export const selectStoredMessage = (state: WithMessages, room: string, seq: number) =>
  selectRoom(state, room).stored.entities[seq];

export const selectEarlierMissing = (state: WithMessages, room: string) =>
  selectRoom(state, room).earlierMissing;
