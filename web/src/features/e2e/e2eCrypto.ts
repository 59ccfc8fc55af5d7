// The room key's construction (protocol/README.md §6.12), in a chunk of its own: only an
// encrypted room, or creating one, loads it. The main bundle holds `e2e.ts` too (the codec tells
// ciphertext bodies by their shape), and a bundler keeps a module in one chunk: the query makes
// this a module of its own, so the construction stays out of the first load.
export { newRoomKey, roomCipher } from '../../../../protocol/src/e2e.ts?lazy';

import { FrameType, isHistoryFrame, type RoomCipher, type ServerFrame } from '@taco/protocol';
import type { ReceivedMessage } from '../chat/chatActions';

/** A message with its body opened by the room's cipher (none: no key), or marked as unreadable. */
async function openMessage<M extends ReceivedMessage>(
  message: M,
  cipher: RoomCipher | null,
): Promise<M> {
  const text = cipher ? await cipher.decrypt(message.body) : null;
  return text === null ? { ...message, body: '', undecryptable: true } : { ...message, body: text };
}

/** A message frame of an encrypted room with its bodies decrypted (§6.12). */
export async function openFrame(
  frame: ServerFrame,
  cipher: RoomCipher | null,
): Promise<ServerFrame> {
  if (frame.type !== FrameType.Message) return frame;
  if (!isHistoryFrame(frame)) return openMessage(frame, cipher);
  const messages = await Promise.all(frame.messages.map((m) => openMessage(m, cipher)));
  return { ...frame, messages };
}
