import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { type ChatMessage, userNameKey } from '@taco/protocol';
import { errorReason, errorStatus } from '../../api/errorText';
import { roomsApi } from '../../api/roomsApi';
import { roomCreated, unauthorized } from '../roomAuth/roomAuthSlice';

export { roomCreated };

/** A typing indicator with no refresh for this long is considered stale. */
export const TYPING_STALE_MS = 6000;

export type MessageStatus = 'pending' | 'sent' | 'failed';

export interface Message {
  /** Unique within the room: from the server's `seq`, or from the local `client_id` until then. */
  key: string;
  /** 0 for an own message, otherwise the sender's name (the spec's field). */
  id: 0 | string;
  message: string;
  senderName: string;
  /** Unix time in seconds. */
  timestamp: number;
  seq: number | null;
  clientId: string | null;
  status: MessageStatus;
  source: 'local' | 'remote';
}

export interface Participant {
  name: string;
  active: boolean;
  typing: boolean;
  /** Milliseconds since the epoch of the last typing update. */
  lastTypingTime: number;
}

export interface ChatRoom {
  name: string;
  messages: Message[];
  participants: Participant[];
  /** The highest `seq` seen in this room, to resume history after a reconnect. */
  lastSeq: number | null;
  /** The room's epoch that `lastSeq` and the messages' `seq`s belong to. */
  epoch: string | null;
  /** Earlier messages were trimmed or cleared while this client was away. */
  earlierMissing: boolean;
}

export type ConnectionStatus = 'idle' | 'connecting' | 'open' | 'reconnecting' | 'offline';

export interface ConnectionState {
  room: string | null;
  status: ConnectionStatus;
  /** Reconnect attempts since the last successful open. */
  attempt: number;
  /** Delay before the scheduled reconnect, while one is scheduled. */
  retryDelayMs: number | null;
  /** Socket closes with 4401 since the last successful open. */
  consecutiveUnauthorized: number;
}

export interface Notice {
  id: number;
  text: string;
}

export interface ChatState {
  rooms: Record<string, ChatRoom>;
  currentRoom: string | null;
  senderName: string | null;
  connection: ConnectionState;
  notices: Notice[];
  nextNoticeId: number;
  /** Why the last credential request for a room failed, shown in the username modal. */
  authErrors: Record<string, string>;
}

export const initialChatState: ChatState = {
  rooms: {},
  currentRoom: null,
  senderName: null,
  connection: {
    room: null,
    status: 'idle',
    attempt: 0,
    retryDelayMs: null,
    consecutiveUnauthorized: 0,
  },
  notices: [],
  nextNoticeId: 1,
  authErrors: {},
};

/** Notices kept at once; older ones drop off. */
const MAX_NOTICES = 3;

export const SESSION_EXPIRED_MESSAGE =
  'Your session for this room has expired. Please choose your username again.';

function emptyRoom(name: string): ChatRoom {
  return {
    name,
    messages: [],
    participants: [],
    lastSeq: null,
    epoch: null,
    earlierMissing: false,
  };
}

function ensureRoom(state: ChatState, room: string): ChatRoom {
  const existing = state.rooms[room];
  if (existing) return existing;
  const created = emptyRoom(room);
  state.rooms[room] = created;
  return created;
}

function confirmedMessage(message: ChatMessage, own: boolean, clientId: string | null): Message {
  return {
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
}

/** Confirmed messages come first; messages still pending or failed follow. */
function insertConfirmed(messages: Message[], message: Message) {
  const firstUnconfirmed = messages.findIndex((m) => m.seq === null);
  if (firstUnconfirmed === -1) messages.push(message);
  else messages.splice(firstUnconfirmed, 0, message);
}

/**
 * A history message goes in `seq` order: a history answer can arrive after live messages that
 * are newer than the messages it carries.
 */
function insertBySeq(messages: Message[], message: Message) {
  const seq = message.seq ?? 0;
  const later = messages.findIndex((m) => m.seq === null || m.seq > seq);
  if (later === -1) messages.push(message);
  else messages.splice(later, 0, message);
}

function bumpSeq(room: ChatRoom, seq: number) {
  if (room.lastSeq === null || seq > room.lastSeq) room.lastSeq = seq;
}

/** The same stored message as one already shown (a server that restarted reuses `seq`s). */
function isDuplicate(room: ChatRoom, message: ChatMessage): boolean {
  return room.messages.some(
    (m) => m.seq === message.seq && m.senderName === message.sender && m.message === message.body,
  );
}

/**
 * Takes the room's epoch from a frame. A different one means the room's `seq` started again:
 * the confirmed messages held belong to the old numbering and go, like after `complete: false`.
 * Returns whether it changed.
 */
function adoptEpoch(room: ChatRoom, epoch: string | undefined): boolean {
  if (epoch === undefined || room.epoch === epoch) return false;
  const changed = room.epoch !== null;
  room.epoch = epoch;
  if (changed) {
    room.messages = room.messages.filter((m) => m.seq === null);
    room.lastSeq = null;
    room.earlierMissing = true;
  }
  return changed;
}

function addNotice(state: ChatState, text: string) {
  state.notices.push({ id: state.nextNoticeId, text });
  state.nextNoticeId += 1;
  if (state.notices.length > MAX_NOTICES)
    state.notices.splice(0, state.notices.length - MAX_NOTICES);
}

/** Removes and returns the first unconfirmed own message with this body, if any. */
function takeUnconfirmed(room: ChatRoom, body: string): Message | undefined {
  const index = room.messages.findIndex(
    (m) => m.seq === null && m.source === 'local' && m.message === body,
  );
  if (index === -1) return undefined;
  return room.messages.splice(index, 1)[0];
}

export interface MessageReceivedPayload {
  room: string;
  message: ChatMessage;
  clientId: string | null;
  own: boolean;
  /** The room's epoch the frame carried. */
  epoch?: string;
}

export interface HistoryReceivedPayload {
  room: string;
  messages: ChatMessage[];
  complete: boolean;
  /** The `after` of the request this answers; `null` for the first request. */
  after: number | null;
  /** The current user's name in the room, to tell own messages. */
  me: string;
  /** The room's epoch the answer carried; another than the one held replaces the list. */
  epoch?: string;
}

export const chatSlice = createSlice({
  name: 'chat',
  initialState: initialChatState,
  reducers: {
    /** The user opened a room page. */
    roomEntered(state, action: PayloadAction<{ room: string }>) {
      ensureRoom(state, action.payload.room);
      state.currentRoom = action.payload.room;
    },
    /** The room page is authenticated: the socket joins the room with the token. */
    roomJoined(state, action: PayloadAction<{ room: string; token: string }>) {
      ensureRoom(state, action.payload.room);
      state.connection = {
        ...state.connection,
        room: action.payload.room,
        status: 'connecting',
        attempt: 0,
        retryDelayMs: null,
      };
    },
    /** The user left the room page: the socket closes. */
    roomLeft(state, action: PayloadAction<{ room: string }>) {
      if (state.connection.room === action.payload.room) {
        state.connection = { ...initialChatState.connection };
      }
      if (state.currentRoom === action.payload.room) state.currentRoom = null;
    },
    /** The room's messages were cleared, here (`local`) or by anyone in the room (`remote`). */
    roomCleared(state, action: PayloadAction<{ room: string; source: 'local' | 'remote' }>) {
      const room = ensureRoom(state, action.payload.room);
      room.messages = [];
      room.earlierMissing = false;
    },
    senderNameSet(state, action: PayloadAction<{ name: string }>) {
      state.senderName = action.payload.name;
    },
    presenceUpdated(
      state,
      action: PayloadAction<{ room: string; sender: string; active: boolean }>,
    ) {
      const { sender, active } = action.payload;
      const room = ensureRoom(state, action.payload.room);
      const participant = room.participants.find((p) => p.name === sender);
      if (participant) {
        participant.active = active;
        if (!active) participant.typing = false;
      } else {
        room.participants.push({ name: sender, active, typing: false, lastTypingTime: 0 });
      }
    },
    typingUpdated(
      state,
      action: PayloadAction<{ room: string; sender: string; typing: boolean; time: number }>,
    ) {
      const { sender, typing, time } = action.payload;
      const room = ensureRoom(state, action.payload.room);
      const entry: Participant = { name: sender, active: true, typing, lastTypingTime: time };
      const index = room.participants.findIndex((p) => p.name === sender);
      if (index === -1) room.participants.push(entry);
      else room.participants[index] = entry;
    },
    /** Typing indicators without a refresh for `TYPING_STALE_MS` are dropped. */
    typingExpired(state, action: PayloadAction<{ room: string; now: number }>) {
      const room = state.rooms[action.payload.room];
      if (!room) return;
      for (const participant of room.participants) {
        if (
          participant.typing &&
          action.payload.now - participant.lastTypingTime >= TYPING_STALE_MS
        ) {
          participant.typing = false;
        }
      }
    },
    /** A single message from the server, possibly the echo of an own message. */
    messageReceived(state, action: PayloadAction<MessageReceivedPayload>) {
      const { message, clientId, own } = action.payload;
      const room = ensureRoom(state, action.payload.room);
      adoptEpoch(room, action.payload.epoch);
      if (isDuplicate(room, message)) return;
      if (clientId !== null) {
        const index = room.messages.findIndex((m) => m.clientId === clientId && m.seq === null);
        if (index !== -1) room.messages.splice(index, 1);
      }
      insertConfirmed(room.messages, confirmedMessage(message, own, clientId));
      // Live messages arrive in `seq` order, so the latest is the highest, even after a server
      // restart started numbering again.
      room.lastSeq = message.seq;
    },
    /** A history batch: the first load, a resume after a reconnect, or a replacement. */
    historyReceived(state, action: PayloadAction<HistoryReceivedPayload>) {
      const { messages, complete, after, me } = action.payload;
      const room = ensureRoom(state, action.payload.room);
      const meKey = userNameKey(me);
      const epochChanged = adoptEpoch(room, action.payload.epoch);
      const replace = after === null || !complete || epochChanged;
      if (replace) {
        // Live messages that arrived after the request was sent are newer than the answer: keep
        // them, and drop everything the answer replaces.
        const newest = messages.reduce<number>((max, m) => Math.max(max, m.seq), after ?? -1);
        room.messages = room.messages.filter((m) => m.seq === null || m.seq > newest);
        room.lastSeq = room.messages.reduce<number | null>(
          (max, m) => (m.seq !== null && (max === null || m.seq > max) ? m.seq : max),
          null,
        );
      }
      if (after !== null && !complete) room.earlierMissing = true;
      for (const item of messages) {
        if (isDuplicate(room, item)) continue;
        const own = userNameKey(item.sender) === meKey;
        const pending = own ? takeUnconfirmed(room, item.body) : undefined;
        insertBySeq(room.messages, confirmedMessage(item, own, pending?.clientId ?? null));
        bumpSeq(room, item.seq);
      }
    },
    /** The user sent a message: it shows at once, pending until the server echoes it. */
    messageSent(
      state,
      action: PayloadAction<{
        room: string;
        clientId: string;
        body: string;
        senderName: string;
        timestamp: number;
      }>,
    ) {
      const { clientId, body, senderName, timestamp } = action.payload;
      const room = ensureRoom(state, action.payload.room);
      room.messages.push({
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
    },
    /** The server could not take a message; the user may retry it. */
    messageFailed(state, action: PayloadAction<{ room: string; clientId: string }>) {
      const message = state.rooms[action.payload.room]?.messages.find(
        (m) => m.clientId === action.payload.clientId && m.seq === null,
      );
      if (message) message.status = 'failed';
    },
    /** The user retries a failed message. */
    messageRetried(state, action: PayloadAction<{ room: string; clientId: string }>) {
      const room = state.rooms[action.payload.room];
      if (!room) return;
      const index = room.messages.findIndex(
        (m) => m.clientId === action.payload.clientId && m.status === 'failed',
      );
      const message = room.messages[index];
      if (!message) return;
      room.messages.splice(index, 1);
      room.messages.push({ ...message, status: 'pending' });
    },
    /** The message input changed; the socket middleware sends typing frames from it. */
    draftEdited(_state, _action: PayloadAction<{ room: string; empty: boolean }>) {},
    connectionOpened(state, action: PayloadAction<{ room: string }>) {
      state.connection = {
        room: action.payload.room,
        status: 'open',
        attempt: 0,
        retryDelayMs: null,
        consecutiveUnauthorized: 0,
      };
    },
    connectionClosed(state, action: PayloadAction<{ room: string; code: number }>) {
      if (state.connection.room !== action.payload.room) return;
      state.connection.status = 'reconnecting';
      const room = state.rooms[action.payload.room];
      if (room) {
        for (const participant of room.participants) participant.typing = false;
      }
    },
    reconnectScheduled(
      state,
      action: PayloadAction<{ room: string; attempt: number; delayMs: number }>,
    ) {
      state.connection.status = 'reconnecting';
      state.connection.attempt = action.payload.attempt;
      state.connection.retryDelayMs = action.payload.delayMs;
    },
    reconnectStarted(state, action: PayloadAction<{ room: string; attempt: number }>) {
      state.connection.status = action.payload.attempt > 0 ? 'reconnecting' : 'connecting';
      state.connection.retryDelayMs = null;
    },
    /** The socket gave up (attempts exhausted, or the server refused for good). */
    connectionLost(
      state,
      action: PayloadAction<{ room: string; reason: 'closed' | 'policy' | 'exhausted' }>,
    ) {
      if (state.connection.room !== action.payload.room) return;
      state.connection.status = 'offline';
      state.connection.retryDelayMs = null;
    },
    /** The user asked to reconnect after the socket gave up. */
    reconnectRequested(state, action: PayloadAction<{ room: string }>) {
      const { room, status } = state.connection;
      if (room !== action.payload.room || (status !== 'reconnecting' && status !== 'offline')) {
        return;
      }
      state.connection.attempt = 0;
      state.connection.status = 'connecting';
    },
    /** The server answered a frame with an error frame (type 7). */
    errorFrameReceived(state, action: PayloadAction<{ code: string; message: string }>) {
      addNotice(state, action.payload.message);
    },
    noticeDismissed(state, action: PayloadAction<{ id: number }>) {
      state.notices = state.notices.filter((n) => n.id !== action.payload.id);
    },
  },
  extraReducers: (builder) => {
    builder
      .addCase(roomCreated, (state, action) => {
        ensureRoom(state, action.payload.room);
      })
      .addCase(unauthorized, (state, action) => {
        // A socket refused twice in a row without opening in between: ask the user.
        if (action.payload.source !== 'socket') return;
        state.connection.consecutiveUnauthorized += 1;
        state.connection.status = 'idle';
        if (state.connection.consecutiveUnauthorized > 1) {
          state.authErrors[action.payload.room] = SESSION_EXPIRED_MESSAGE;
        }
      })
      .addMatcher(roomsApi.endpoints.requestCredentials.matchPending, (state, action) => {
        delete state.authErrors[action.meta.arg.originalArgs.room];
      })
      .addMatcher(roomsApi.endpoints.requestCredentials.matchFulfilled, (state, action) => {
        state.senderName = action.payload.sender_id;
        delete state.authErrors[action.payload.room_id];
      })
      .addMatcher(roomsApi.endpoints.requestCredentials.matchRejected, (state, action) => {
        const room = action.meta.arg.originalArgs.room;
        state.authErrors[room] =
          errorStatus(action.payload ?? action.error) === 401
            ? SESSION_EXPIRED_MESSAGE
            : errorReason(action.payload ?? action.error);
      })
      .addMatcher(roomsApi.endpoints.createRoom.matchFulfilled, (state, action) => {
        state.senderName = action.payload.name;
        ensureRoom(state, action.payload.room);
      });
  },
});

export const {
  roomEntered,
  roomJoined,
  roomLeft,
  roomCleared,
  senderNameSet,
  presenceUpdated,
  typingUpdated,
  typingExpired,
  messageReceived,
  historyReceived,
  messageSent,
  messageFailed,
  messageRetried,
  draftEdited,
  connectionOpened,
  connectionClosed,
  reconnectScheduled,
  reconnectStarted,
  connectionLost,
  reconnectRequested,
  errorFrameReceived,
  noticeDismissed,
} = chatSlice.actions;

type WithChat = { chat: ChatState };

const NO_MESSAGES: Message[] = [];
const NO_PARTICIPANTS: Participant[] = [];

export const selectCurrentRoom = (state: WithChat) => state.chat.currentRoom;
export const selectChatRoom = (state: WithChat, room: string) => state.chat.rooms[room];
export const selectMessages = (state: WithChat, room: string) =>
  state.chat.rooms[room]?.messages ?? NO_MESSAGES;
export const selectParticipants = (state: WithChat, room: string) =>
  state.chat.rooms[room]?.participants ?? NO_PARTICIPANTS;
export const selectEarlierMissing = (state: WithChat, room: string) =>
  state.chat.rooms[room]?.earlierMissing ?? false;
export const selectConnection = (state: WithChat) => state.chat.connection;
export const selectNotices = (state: WithChat) => state.chat.notices;
export const selectAuthError = (state: WithChat, room: string) => state.chat.authErrors[room];
export const selectSenderName = (state: WithChat) => state.chat.senderName;
