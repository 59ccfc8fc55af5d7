import {
  type ChatMessage,
  encodeFrame,
  FrameType,
  type ServerClearedFrame,
  type ServerMessageFrame,
} from '@taco/protocol';

/** The live frame of a stored message; `client_id` rides along when the sender gave one. */
export function messageFrame(
  room: string,
  message: ChatMessage,
  epoch: string,
  clientId?: string,
): string {
  const frame: ServerMessageFrame = { type: FrameType.Message, room, ...message, epoch };
  if (clientId !== undefined) frame.client_id = clientId;
  return encodeFrame(frame);
}

export function clearedFrame(room: string, sender: string): string {
  const frame: ServerClearedFrame = { type: FrameType.Clear, room, sender };
  return encodeFrame(frame);
}
