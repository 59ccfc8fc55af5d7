import type { ErrorCode, FrameType } from './frame-types';

// Client → server

/**
 * What a client frame other than a heartbeat may carry besides its own fields: a `client_id`
 * (≤ 64 characters) that an error answering the frame carries back. On a message it also rides
 * on every copy of the stored message.
 */
interface ClientTaggedFrame {
  client_id?: string;
}

export interface ClientMessageFrame extends ClientTaggedFrame {
  type: typeof FrameType.Message;
  body: string;
}

export interface ClientTypingFrame extends ClientTaggedFrame {
  type: typeof FrameType.Typing;
  typing: boolean;
}

export interface ClientClearFrame extends ClientTaggedFrame {
  type: typeof FrameType.Clear;
}

export interface ClientHistoryFrame extends ClientTaggedFrame {
  type: typeof FrameType.History;
  count: number;
  /** Only messages whose `seq` is greater than this. */
  after?: number;
  /**
   * The epoch `after` belongs to. When it is not the room's current epoch, `after` is ignored and
   * the answer is the last `count` messages, `complete: false`.
   */
  epoch?: string;
}

export interface HeartbeatFrame {
  type: typeof FrameType.Heartbeat;
}

/**
 * The sender takes another display name: `token` is a room token for the new name (from
 * `POST /api/room/:room_id`), sent on the connection that holds the old one. The server checks
 * that the token is valid for the connection's room, moves the connection to the new name and
 * tells the room (a presence frame with `renamed_from`), so only the holder of a name can rename
 * it.
 */
export interface ClientRenameFrame extends ClientTaggedFrame {
  type: typeof FrameType.Rename;
  token: string;
}

/** What the creator can do to a room (protocol/README.md §6.9). */
export const ROOM_ACTIONS = ['lock', 'unlock', 'remove', 'hand_over', 'disappear'] as const;
export type RoomAction = (typeof ROOM_ACTIONS)[number];

/**
 * The creator changes the room: lock or unlock it, remove a present participant or hand them the
 * creator right (`name`), or set how long messages stay (`after`, seconds; 0 = forever).
 */
export type ClientControlFrame = ClientTaggedFrame & { type: typeof FrameType.Room } & (
    | { action: 'lock' | 'unlock' }
    | { action: 'remove' | 'hand_over'; name: string }
    | { action: 'disappear'; after: number }
  );

export type ClientFrame =
  | ClientMessageFrame
  | ClientTypingFrame
  | ClientClearFrame
  | ClientHistoryFrame
  | HeartbeatFrame
  | ClientRenameFrame
  | ClientControlFrame;

// Server → client

/** A stored chat message as history carries it. */
export interface ChatMessage {
  sender: string;
  body: string;
  /** Unix time in seconds; may have a fraction. */
  timestamp: number;
  /** Per-room, strictly increasing, assigned by the server. */
  seq: number;
}

export interface ServerMessageFrame extends ChatMessage {
  type: typeof FrameType.Message;
  room: string;
  /** The room's epoch: `seq` counts within it (see `ServerHistoryFrame.epoch`). */
  epoch: string;
  client_id?: string;
}

export interface ServerHistoryFrame {
  type: typeof FrameType.Message;
  room: string;
  /**
   * The room's epoch: a short opaque string that changes whenever the room's `seq` starts again
   * (the embedded server restarted, storage lost the room, the room expired and was made anew).
   * A client compares `(epoch, seq)`, never `seq` alone.
   */
  epoch: string;
  /** Oldest first. */
  messages: ChatMessage[];
  /**
   * False when the request named `after` and some message past it is no longer stored
   * (trimmed or cleared), or named an epoch that is not the room's: the client replaces its
   * list instead of appending.
   */
  complete: boolean;
}

export interface ServerTypingFrame {
  type: typeof FrameType.Typing;
  room: string;
  sender: string;
  typing: boolean;
}

export interface ServerPresenceFrame {
  type: typeof FrameType.Presence;
  room: string;
  sender: string;
  /** True: present; false: gone. */
  connecting: boolean;
  /**
   * On `connecting: true` only: this participant was called `renamed_from` until now (a rename,
   * frame 8). It comes first; if the old name has no connection left, a `connecting: false` for
   * it follows, carrying `renamed_to`.
   */
  renamed_from?: string;
  /** On `connecting: false` only: the name left because it was renamed to `renamed_to`. */
  renamed_to?: string;
}

export interface ServerClearedFrame {
  type: typeof FrameType.Clear;
  room: string;
  sender: string;
}

export interface ErrorFrame {
  type: typeof FrameType.Error;
  code: ErrorCode;
  message: string;
  /** The `client_id` of the frame this answers, when it carried a valid one. */
  client_id?: string;
}

/** What a room frame says changed, and who changed it (§6.9). */
export interface RoomEvent {
  action: RoomAction;
  /** The creator's name. */
  by: string;
  /** The participant removed or given the creator right. */
  name?: string;
  /** The new `disappear_after`, on `disappear`. */
  after?: number;
}

/** A room's settings on the wire (§6.9). */
export interface RoomSettingsFields {
  encrypted: boolean;
  locked: boolean;
  /** Seconds after which messages disappear; 0: never. */
  disappear_after: number;
}

/** The room's settings: after the roster on every join, and to everyone on every change. */
export interface ServerRoomFrame extends RoomSettingsFields {
  type: typeof FrameType.Room;
  room: string;
  /**
   * The encrypted room's key check (§6.12); null in a plain room. Always sent by this server;
   * absent only from a server older than the field, which a client reads as not told.
   */
  key_check?: string | null;
  /** The name the creator right was last taken or moved under; null when the room has none. */
  creator: string | null;
  /** Whether this connection's credential holds the creator right. */
  is_creator: boolean;
  event?: RoomEvent;
}

export type ServerFrame =
  | ServerMessageFrame
  | ServerHistoryFrame
  | ServerTypingFrame
  | ServerPresenceFrame
  | ServerClearedFrame
  | HeartbeatFrame
  | ErrorFrame
  | ServerRoomFrame;

/** Tells a history batch from a single message (both are type 1). */
export function isHistoryFrame(
  frame: ServerMessageFrame | ServerHistoryFrame,
): frame is ServerHistoryFrame {
  return Array.isArray((frame as ServerHistoryFrame).messages);
}
