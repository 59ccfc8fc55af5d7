import type { RoomCipher } from '@taco/protocol/e2e-crypto';

const ciphers = new Map<string, Promise<RoomCipher>>();

/** Loads the crypto chunk (the room key's construction). */
export const loadE2eCrypto = () => import('./e2eCrypto');

/**
 * The cipher of an encrypted room for `key` (derived once per room and key, then shared by the
 * page and the socket). Rejects when the key is not a room key.
 */
export function roomCipherFor(room: string, key: string): Promise<RoomCipher> {
  const id = `${room}\n${key}`;
  let cipher = ciphers.get(id);
  if (!cipher) {
    cipher = loadE2eCrypto().then(({ roomCipher }) => roomCipher(key, room));
    ciphers.set(id, cipher);
    // A key that derives nothing is not kept: the next look gets the same refusal, afresh.
    cipher.catch(() => ciphers.delete(id));
  }
  return cipher;
}

/** A new room key for `room`, with the key check the server keeps (§2.2). */
export async function newRoomSecret(room: string): Promise<{ key: string; keyCheck: string }> {
  const { newRoomKey } = await loadE2eCrypto();
  const key = newRoomKey();
  return { key, keyCheck: (await roomCipherFor(room, key)).keyCheck };
}
