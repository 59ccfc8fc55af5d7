import { createSlice } from '@reduxjs/toolkit';
import { type ChatMessage, userNameKey } from '@taco/protocol';
import { roomsApi } from '../../api/roomsApi';
import {
  historyReceived,
  messageFailed,
  messageReceived,
  messageRetried,
  messageSent,
  roomCleared,
  roomCreated,
  roomEntered,
  roomJoined,
} from './chatActions';

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

export interface ChatRoom {
  name: string;
  messages: Message[];
  /** The highest `seq` seen in this room, to resume history after a reconnect. */
  lastSeq: number | null;
  /** The room's epoch that `lastSeq` and the messages' `seq`s belong to. */
  epoch: string | null;
  /** Earlier messages were trimmed or cleared while this client was away. */
  earlierMissing: boolean;
}

export interface ChatState {
  rooms: Record<string, ChatRoom>;
}

export const initialChatState: ChatState = { rooms: {} };

function emptyRoom(name: string): ChatRoom {
  return { name, messages: [], lastSeq: null, epoch: null, earlierMissing: false };
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

/** Removes and returns the first unconfirmed own message with this body, if any. */
function takeUnconfirmed(room: ChatRoom, body: string): Message | undefined {
  const index = room.messages.findIndex(
    (m) => m.seq === null && m.source === 'local' && m.message === body,
  );
  if (index === -1) return undefined;
  return room.messages.splice(index, 1)[0];
}

export const chatSlice = createSlice({
  name: 'chat',
  initialState: initialChatState,
  reducers: {},
  extraReducers: (builder) => {
    builder
      .addCase(roomCreated, (state, action) => {
        ensureRoom(state, action.payload.room);
      })
      .addCase(roomEntered, (state, action) => {
        ensureRoom(state, action.payload.room);
      })
      .addCase(roomJoined, (state, action) => {
        ensureRoom(state, action.payload.room);
      })
      .addCase(roomCleared, (state, action) => {
        const room = ensureRoom(state, action.payload.room);
        room.messages = [];
        room.earlierMissing = false;
      })
      .addCase(messageReceived, (state, action) => {
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
      })
      .addCase(historyReceived, (state, action) => {
        const { messages, complete, after, me } = action.payload;
        const room = ensureRoom(state, action.payload.room);
        const meKey = userNameKey(me);
        const epochChanged = adoptEpoch(room, action.payload.epoch);
        const replace = after === null || !complete || epochChanged;
        if (replace) {
          // Live messages that arrived after the request was sent are newer than the answer:
          // keep them, and drop everything the answer replaces.
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
      })
      .addCase(messageSent, (state, action) => {
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
      })
      .addCase(messageFailed, (state, action) => {
        const message = state.rooms[action.payload.room]?.messages.find(
          (m) => m.clientId === action.payload.clientId && m.seq === null,
        );
        if (message) message.status = 'failed';
      })
      .addCase(messageRetried, (state, action) => {
        const room = state.rooms[action.payload.room];
        if (!room) return;
        const index = room.messages.findIndex(
          (m) => m.clientId === action.payload.clientId && m.status === 'failed',
        );
        const message = room.messages[index];
        if (!message) return;
        room.messages.splice(index, 1);
        room.messages.push({ ...message, status: 'pending' });
      })
      .addMatcher(roomsApi.endpoints.createRoom.matchFulfilled, (state, action) => {
        ensureRoom(state, action.payload.room);
      });
  },
});

type WithChat = { chat: ChatState };

const NO_MESSAGES: Message[] = [];

export const selectChatRoom = (state: WithChat, room: string) => state.chat.rooms[room];
export const selectMessages = (state: WithChat, room: string) =>
  state.chat.rooms[room]?.messages ?? NO_MESSAGES;
export const selectEarlierMissing = (state: WithChat, room: string) =>
  state.chat.rooms[room]?.earlierMissing ?? false;
