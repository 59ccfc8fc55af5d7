import {
  type ChatMessage,
  encodeFrame,
  FrameType,
  type ServerClearedFrame,
  type ServerMessageFrame,
  type ServerPresenceFrame,
} from '@taco/protocol';
import { type RoomEvent } from './chat-bus.port';

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
