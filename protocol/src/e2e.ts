/**
 * End-to-end encrypted rooms (protocol/README.md §6.12): the shapes and sizes, which the server
 * and every page need (the server never holds a key: it only tells a ciphertext body from a plain
 * one, `isCiphertextBody`). The construction itself, the keys and the cipher, is in `e2e-crypto.ts`,
 * published apart as `@taco/protocol/e2e-crypto` so that a client loads it only when it needs it.
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
