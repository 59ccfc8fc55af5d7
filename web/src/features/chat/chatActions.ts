import { createAction } from '@reduxjs/toolkit';
import type { ChatMessage, RoomEvent } from '@taco/protocol';

/**
 * The chat's events, written once: the pages and the socket middleware dispatch them, and every
 * feature slice (connection, messages, presence, typing, notices) reacts to those it cares about.
 * Each is named for what happened, in the past tense.
 */

// The room page

/**
 * A name the user had in the room before renaming: the room's messages under it, up to `upToSeq`
 * of `epoch`, are the user's own (anyone may take the name afterwards).
 */
export interface FormerName {
  name: string;
  epoch: string;
  upToSeq: number;
}

/**
 * A place in the room's messages: after `seq` of `epoch` (`null`: before any message of it). A
 * feed line carries the place it happened at, so it sits where the user saw it.
 */
export interface MessagePoint {
  epoch: string | null;
  seq: number | null;
}

/** A room was opened or created on this device. */
export const roomCreated = createAction<{ room: string }>('chat/roomCreated');

/** The user opened a room page that this device already knew. */
export const roomEntered = createAction<{ room: string }>('chat/roomEntered');

/** The room page is authenticated: the socket joins the room with the token. */
export const roomJoined = createAction<{ room: string; token: string }>('chat/roomJoined');

/** The user left the room page: the socket closes. */
export const roomLeft = createAction<{ room: string }>('chat/roomLeft');

/**
 * The room's messages were cleared, here (`local`) or by anyone in the room (`remote`, the
 * server's frame 4, which names who cleared it: the clearer gets it too).
 */
export const roomCleared = createAction<{
  room: string;
  source: 'local' | 'remote';
  sender?: string;
  /** When the frame came (ms since the epoch). */
  time?: number;
  /** The server's frame: the newest message held when it came. */
  feedAt?: MessagePoint;
}>('chat/roomCleared');

// Messages

/**
 * A message as the server sent it, its body decrypted in an end-to-end encrypted room; a body
 * that did not open there is `undecryptable` (and its `body` empty, never the ciphertext).
 */
export type ReceivedMessage = ChatMessage & { undecryptable?: boolean };

export interface MessageReceivedPayload {
  room: string;
  message: ReceivedMessage;
  clientId: string | null;
  /** The current user's name in the room, to tell own messages. */
  me: string;
  /** The user's former names in the room, whose earlier messages are own too. */
  formerNames?: readonly FormerName[];
  /** The room's epoch the frame carried. */
  epoch?: string;
}

/** A single message from the server, possibly the echo of an own message. */
export const messageReceived = createAction<MessageReceivedPayload>('chat/messageReceived');

export interface HistoryReceivedPayload {
  room: string;
  messages: ReceivedMessage[];
  complete: boolean;
  /** The `after` of the request this answers; `null` for the first request. */
  after: number | null;
  /** The current user's name in the room, to tell own messages. */
  me: string;
  /** The user's former names in the room, whose earlier messages are own too. */
  formerNames?: readonly FormerName[];
  /** The room's epoch the answer carried; another than the one held replaces the list. */
  epoch?: string;
}

/** A history batch: the first load, a resume after a reconnect, or a replacement. */
export const historyReceived = createAction<HistoryReceivedPayload>('chat/historyReceived');

export interface MessageSentPayload {
  room: string;
  clientId: string;
  body: string;
  senderName: string;
  /** Unix time in seconds. */
  timestamp: number;
}

/** The user sent a message: it shows at once, pending until the server echoes it. */
export const messageSent = createAction<MessageSentPayload>('chat/messageSent');

/** The user retries a failed message. */
export const messageRetried = createAction<{ room: string; clientId: string }>(
  'chat/messageRetried',
);

// Participants

/**
 * Someone's presence changed (frame 3): `active` is the frame's `connecting`; `time` is when the
 * frame came (ms since the epoch).
 */
export const presenceUpdated = createAction<{
  room: string;
  sender: string;
  active: boolean;
  time?: number;
  /**
   * Set when the frame is news for the feed, "{name} joined" or "{name} left": it changes whether
   * the name is present, outside the roster a (re)connecting socket gets. The newest message held
   * then.
   */
  feedAt?: MessagePoint;
}>('chat/presenceUpdated');

/** Someone started or stopped typing (frame 2), at `time` (ms since the epoch). */
export const typingUpdated = createAction<{
  room: string;
  sender: string;
  typing: boolean;
  time: number;
}>('chat/typingUpdated');

/** Time passed: typing indicators without a refresh for `TYPING_STALE_MS` are dropped. */
export const typingExpired = createAction<{ room: string; now: number }>('chat/typingExpired');

/** The message input changed; the socket middleware sends typing frames from it. */
export const draftEdited = createAction<{ room: string; text: string }>('chat/draftEdited');

// The connection

export const connectionOpened = createAction<{ room: string }>('chat/connectionOpened');

export const connectionClosed = createAction<{ room: string; code: number }>(
  'chat/connectionClosed',
);

export const reconnectScheduled = createAction<{ room: string; attempt: number; delayMs: number }>(
  'chat/reconnectScheduled',
);

export const reconnectStarted = createAction<{ room: string; attempt: number }>(
  'chat/reconnectStarted',
);

/** The socket gave up (attempts exhausted, or the server refused for good). */
export const connectionLost = createAction<{
  room: string;
  reason: 'closed' | 'policy' | 'exhausted' | 'removed';
}>('chat/connectionLost');

/** The user (or the browser coming back online) asked to reconnect. */
export const reconnectRequested = createAction<{ room: string }>('chat/reconnectRequested');

export interface ErrorFrameReceivedPayload {
  /** The room the socket is for. */
  room: string;
  code: string;
  /** Human text, shown as a notice. */
  message: string;
  /** The own message the error answers: it was not stored, and the user may retry it. */
  clientId: string | null;
}

/** The server answered a frame with an error frame (type 7). */
export const errorFrameReceived =
  createAction<ErrorFrameReceivedPayload>('chat/errorFrameReceived');

/** The server did not store an own message for good (after its retries): the user may retry it. */
export const messageFailed = createAction<{ room: string; clientId: string }>('chat/messageFailed');

// Names

/** `from` is now called `to` (a presence frame with `renamed_from`), at `time` (ms). */
export const participantRenamed = createAction<{
  room: string;
  from: string;
  to: string;
  time: number;
  /**
   * Set unless `to` was present already (another tab of the renamer's browser renamed first, and
   * the feed said so then): the newest message held, after which the feed says so.
   */
  feedAt?: MessagePoint;
}>('chat/participantRenamed');

/** `name` has no connection left because it was renamed (a presence frame with `renamed_to`). */
export const participantRenamedAway = createAction<{ room: string; name: string; to: string }>(
  'chat/participantRenamedAway',
);

/** The user asked to take another name, with a token for it: the socket sends a rename frame. */
export const renameRequested = createAction<{ room: string; name: string; token: string }>(
  'chat/renameRequested',
);

/** The server moved this connection to the new name: its token is the room's credential now. */
export const renamed = createAction<{
  room: string;
  name: string;
  token: string;
  /** The name left, with the last message of the room it covers (none before any message). */
  former?: FormerName;
}>('chat/renamed');

/** The user left the room for good: its credential is forgotten. */
export const roomForgotten = createAction<{ room: string }>('chat/roomForgotten');

/**
 * Another tab of this browser stored credentials for a room under the name this tab holds
 * there (say after a server restart made every token invalid and that tab asked first): this tab
 * takes them over, instead of asking for its own and being told its own name is taken.
 */
export const credentialsShared = createAction<{ room: string; name: string; token: string }>(
  'chat/credentialsShared',
);

// Private rooms (protocol/README.md §6.9–§6.13)

/**
 * The room frame (type 9): the room's settings and its creator, after the roster on every join
 * and to everyone after every change (`event`, with the newest message held then, `feedAt`).
 */
export const roomFrameReceived = createAction<{
  room: string;
  encrypted: boolean;
  /** The encrypted room's key check (§6.12), null in a plain room; absent when not told. */
  keyCheck?: string | null;
  locked: boolean;
  /** Seconds; 0: messages stay. */
  disappearAfter: number;
  creator: string | null;
  isCreator: boolean;
  event?: RoomEvent;
  /** When the frame came (ms since the epoch). */
  time: number;
  feedAt: MessagePoint;
}>('chat/roomFrameReceived');

/** The room's key, read from the link's fragment: kept for the room next to its credential. */
export const roomKeyFound = createAction<{ room: string; key: string }>('chat/roomKeyFound');

/** An own message of an encrypted room was encrypted: `wire` is the body that goes out. */
export const messageSealed = createAction<{ room: string; clientId: string; wire: string }>(
  'chat/messageSealed',
);

/** Stored messages sent at or before `before` (Unix seconds) disappeared (§6.13). */
export const messagesExpired = createAction<{ room: string; before: number }>(
  'chat/messagesExpired',
);

/** What the room's creator asks the server to change (a control frame, type 9). */
export type RoomControl =
  | { action: 'lock' | 'unlock' }
  | { action: 'remove' | 'hand_over'; name: string }
  | { action: 'disappear'; after: number };

/** The creator changed the room: the socket sends the control frame. */
export const roomControlSent = createAction<{ room: string; control: RoomControl }>(
  'chat/roomControlSent',
);

/** The user, removed from the room, asks to join again under another name (§6.11). */
export const rejoinAsked = createAction<{ room: string }>('chat/rejoinAsked');
