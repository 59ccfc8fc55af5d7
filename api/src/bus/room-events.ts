import {
  type ChatMessage,
  encodeFrame,
  FrameType,
  type RoomEvent as RoomChange,
  type ServerRoomFrame,
  type ServerClearedFrame,
  type ServerMessageFrame,
  type ServerPresenceFrame,
} from '@taco/protocol';
import { type RoomEvent } from './chat-bus.port';
import { type RoomRecord } from './room-settings.port';

/**
 * The events a room's members get through the bus, each carrying a server frame's JSON text as
 * its payload. (A "frame" is what goes on the WebSocket; `RoomHub` frames a payload once per
 * replica.)
 */

/** The payload of a stored message; `client_id` rides along when the sender gave one. */
export function messagePayload(
  room: string,
  message: ChatMessage,
  epoch: string,
  clientId?: string,
): string {
  return encodeFrame(messageFrame(room, message, epoch, clientId));
}

/** The frame of a stored message, as every member of the room gets it. */
export function messageFrame(
  room: string,
  message: ChatMessage,
  epoch: string,
  clientId?: string,
): ServerMessageFrame {
  const { sender, body, timestamp, seq } = message;
  const frame: ServerMessageFrame = {
    type: FrameType.Message,
    room,
    sender,
    body,
    timestamp,
    seq,
    epoch,
  };
  if (clientId !== undefined) frame.client_id = clientId;
  return frame;
}

/** The payload announcing that the room's history was cleared. */
export function clearedPayload(room: string, sender: string): string {
  const frame: ServerClearedFrame = { type: FrameType.Clear, room, sender };
  return encodeFrame(frame);
}

/**
 * A participant is present (`connecting`) or gone. With `except`, that name's own connections
 * skip it (a newcomer learns of itself from the roster it is sent).
 */
export function presenceEvent(
  room: string,
  sender: string,
  connecting: boolean,
  except?: string,
): RoomEvent {
  const payload = encodeFrame({ type: FrameType.Presence, room, sender, connecting });
  return except === undefined ? { payload } : { payload, except };
}

/**
 * A participant renamed: the new name is present, carrying `renamed_from`, and the old name is
 * gone, carrying `renamed_to` (sent only when the old name has no connection left).
 */
export function renameFrames(
  room: string,
  from: string,
  to: string,
): { present: ServerPresenceFrame; gone: ServerPresenceFrame } {
  return {
    present: { type: FrameType.Presence, room, sender: to, connecting: true, renamed_from: from },
    gone: { type: FrameType.Presence, room, sender: from, connecting: false, renamed_to: to },
  };
}

/** Someone is typing, or stopped: for the others in the room. */
export function typingEvent(room: string, sender: string, typing: boolean): RoomEvent {
  return {
    payload: encodeFrame({ type: FrameType.Typing, room, sender, typing }),
    except: sender,
  };
}

/**
 * The room frame (protocol/README.md §6.9) of a room's settings: for one connection
 * (`isCreator`), or, with `isCreator` false, as published for every replica to adapt
 * (`roomControlEvent`). A room without a record has the default settings and no creator.
 */
export function roomFrame(
  room: string,
  record: RoomRecord | null,
  isCreator: boolean,
  change?: RoomChange,
): ServerRoomFrame {
  const frame: ServerRoomFrame = {
    type: FrameType.Room,
    room,
    encrypted: record?.encrypted ?? false,
    key_check: record?.keyCheck ?? null,
    locked: record?.locked ?? false,
    disappear_after: record?.disappearAfter ?? 0,
    creator: record?.creatorName ?? null,
    is_creator: isCreator,
  };
  if (change) frame.event = change;
  return frame;
}

/** The event of a changed room: its frame, whom it names creator, and a holder it removed. */
export function roomControlEvent(
  room: string,
  record: RoomRecord,
  change?: RoomChange,
  removed?: string,
): RoomEvent {
  const control =
    removed === undefined ? { creator: record.creator } : { creator: record.creator, removed };
  return { payload: encodeFrame(roomFrame(room, record, false, change)), control };
}
