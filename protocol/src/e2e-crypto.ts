/**
 * End-to-end encrypted rooms (protocol/README.md §6.12): the construction, written once for the
 * web client and for any other client. Runs on WebCrypto (`globalThis.crypto.subtle`), which
 * browsers and Node ≥ 20 both have. Not exported by the package's index: it is
 * `@taco/protocol/e2e-crypto`, so that a client's first load need not carry it (the web client
 * loads it in a chunk of its own); the shapes and sizes are in `e2e.ts`.
 */
import { E2E_BODY_PREFIX, E2E_IV_BYTES, isCiphertextBody, isRoomKey, ROOM_KEY_BYTES } from './e2e';

/** HKDF salt of every derivation. */
const HKDF_SALT = 'taco-chat/e2e/v1';
/** HKDF info of the message key; the room id follows. */
const MESSAGE_KEY_INFO = 'taco-chat message key\n';
/** HKDF info of the key check; the room id follows. */
const KEY_CHECK_INFO = 'taco-chat key check\n';

export function toBase64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

const utf8 = new TextEncoder();

/** A new random room key, as the link's fragment carries it. */
export function newRoomKey(): string {
  return toBase64url(globalThis.crypto.getRandomValues(new Uint8Array(ROOM_KEY_BYTES)));
}

/** A room's cipher: the message key and key check derived from the room key and the room id. */
export interface RoomCipher {
  /** What the server keeps to tell a right key from a wrong one (§6.12); reveals nothing else. */
  readonly keyCheck: string;
  /** The body to send for `text` (already trimmed and valid, §3.5). `iv` only for test vectors. */
  encrypt(text: string, iv?: Uint8Array<ArrayBuffer>): Promise<string>;
  /** The text of an encrypted body, or null when it does not open with this key in this room. */
  decrypt(body: string): Promise<string | null>;
}

/**
 * Derives a room's cipher. HKDF-SHA-256 over the 32-byte room key, salt `taco-chat/e2e/v1`, gives
 * an AES-256-GCM key (info `taco-chat message key\n<room id>`) and a 16-byte key check (info
 * `taco-chat key check\n<room id>`). Throws on a key that is not 43 base64url characters.
 */
export async function roomCipher(roomKey: string, roomId: string): Promise<RoomCipher> {
  if (!isRoomKey(roomKey)) throw new Error('A room key is 43 base64url characters');
  const subtle = globalThis.crypto.subtle;
  const secret = await subtle.importKey('raw', fromBase64url(roomKey), 'HKDF', false, [
    'deriveKey',
    'deriveBits',
  ]);
  const hkdf = (info: string) => ({
    name: 'HKDF',
    hash: 'SHA-256',
    salt: utf8.encode(HKDF_SALT),
    info: utf8.encode(info + roomId),
  });
  const messageKey = await subtle.deriveKey(
    hkdf(MESSAGE_KEY_INFO),
    secret,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
  const keyCheck = toBase64url(
    new Uint8Array(await subtle.deriveBits(hkdf(KEY_CHECK_INFO), secret, 128)),
  );
  const additionalData = utf8.encode(roomId);
  return {
    keyCheck,
    async encrypt(text, iv = globalThis.crypto.getRandomValues(new Uint8Array(E2E_IV_BYTES))) {
      const sealed = await subtle.encrypt(
        { name: 'AES-GCM', iv, additionalData },
        messageKey,
        utf8.encode(text),
      );
      return `${E2E_BODY_PREFIX}${toBase64url(iv)}.${toBase64url(new Uint8Array(sealed))}`;
    },
    async decrypt(body) {
      if (!isCiphertextBody(body)) return null;
      const [, iv = '', ciphertext = ''] = body.split('.');
      try {
        const opened = await subtle.decrypt(
          { name: 'AES-GCM', iv: fromBase64url(iv), additionalData },
          messageKey,
          fromBase64url(ciphertext),
        );
        return new TextDecoder('utf-8', { fatal: true }).decode(opened);
      } catch {
        return null;
      }
    },
  };
}
