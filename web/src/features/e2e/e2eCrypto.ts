// The room key's construction (protocol/README.md §6.12), in a chunk of its own: only an
// encrypted room, or creating one, loads it (`loadE2eCrypto`). The protocol package publishes it
// apart from its index (`@taco/protocol/e2e-crypto`), so the first load keeps only the shapes the
// codec needs (`isCiphertextBody`, `isRoomKey`) and this chunk shares them.
export { newRoomKey, roomCipher } from '@taco/protocol/e2e-crypto';

import { FrameType, isHistoryFrame, type ServerFrame } from '@taco/protocol';
import type { RoomCipher } from '@taco/protocol/e2e-crypto';
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
