/**
 * End-to-end encrypted rooms (protocol/README.md §6.12): the construction, written once for the
 * web client and for any other client. Runs on WebCrypto (`globalThis.crypto.subtle`), which
 * browsers and Node ≥ 20 both have. The server never holds a key: it only tells a ciphertext body
 * from a plain one (`isCiphertextBody`).
 */
import { MESSAGE_MAX_LENGTH } from './limits';

/** Bytes of a room key, the secret the link's fragment carries. */
export const ROOM_KEY_BYTES = 32;
/** Bytes of a message's AES-GCM nonce, fresh and random per message. */
export const E2E_IV_BYTES = 12;
/** Bytes of the AES-GCM authentication tag appended to every ciphertext. */
export const E2E_TAG_BYTES = 16;
/** Every encrypted body starts with this: the construction's version. */
export const E2E_BODY_PREFIX = 'e1.';
/** Characters of a key check (16 bytes, base64url). */
export const KEY_CHECK_LENGTH = 22;
/** Characters of a room key in the link's fragment (32 bytes, base64url). */
export const ROOM_KEY_LENGTH = 43;

/** HKDF salt of every derivation. */
const HKDF_SALT = 'taco-chat/e2e/v1';
/** HKDF info of the message key; the room id follows. */
const MESSAGE_KEY_INFO = 'taco-chat message key\n';
/** HKDF info of the key check; the room id follows. */
const KEY_CHECK_INFO = 'taco-chat key check\n';

/** Characters of base64url (no padding) for `bytes` bytes. */
function base64urlLength(bytes: number): number {
  return Math.ceil((bytes * 4) / 3);
}

/**
 * The longest ciphertext part of a body: 4000 code points of at most 4 UTF-8 bytes each, plus the
 * tag, in base64url. A body is at most `E2E_BODY_MAX_LENGTH` characters (21,375).
 */
export const E2E_CIPHERTEXT_MAX_LENGTH = base64urlLength(MESSAGE_MAX_LENGTH * 4 + E2E_TAG_BYTES);
/** The shortest ciphertext part: one byte of text and the tag. */
export const E2E_CIPHERTEXT_MIN_LENGTH = base64urlLength(1 + E2E_TAG_BYTES);
/** Longest encrypted body, in characters (all ASCII). */
export const E2E_BODY_MAX_LENGTH =
  E2E_BODY_PREFIX.length + base64urlLength(E2E_IV_BYTES) + 1 + E2E_CIPHERTEXT_MAX_LENGTH;

const BODY_PATTERN = new RegExp(
  `^e1\\.[A-Za-z0-9_-]{${base64urlLength(E2E_IV_BYTES)}}\\.([A-Za-z0-9_-]{${E2E_CIPHERTEXT_MIN_LENGTH},})$`,
);
const KEY_PATTERN = new RegExp(`^[A-Za-z0-9_-]{${ROOM_KEY_LENGTH}}$`);
const KEY_CHECK_PATTERN = new RegExp(`^[A-Za-z0-9_-]{${KEY_CHECK_LENGTH}}$`);

/**
 * Whether a message body has the shape of an encrypted body: `e1.`, the nonce, a dot and a
 * ciphertext of a length base64url can have, within the derived limit. The server stores such a
 * body only in an encrypted room, and only such a body there.
 */
export function isCiphertextBody(body: string): boolean {
  const ciphertext = BODY_PATTERN.exec(body)?.[1];
  return (
    ciphertext !== undefined &&
    ciphertext.length <= E2E_CIPHERTEXT_MAX_LENGTH &&
    ciphertext.length % 4 !== 1
  );
}

/** Whether `text` has the shape of a room key (the link's fragment). */
export function isRoomKey(text: string): boolean {
  return KEY_PATTERN.test(text);
}

/** Whether `text` has the shape of a key check (§2.2). */
export function isKeyCheck(text: unknown): text is string {
  return typeof text === 'string' && KEY_CHECK_PATTERN.test(text);
}

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
