import { createDecipheriv, hkdfSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { E2E_BODY_MAX_LENGTH, isCiphertextBody, isRoomKey } from './e2e';
import { fromBase64url, newRoomKey, roomCipher } from './e2e-crypto';
import { MESSAGE_MAX_LENGTH } from './limits';

interface Vector {
  key: string;
  room: string;
  text: string;
  iv: string;
  key_check: string;
  body: string;
}

/** The test vectors as the contract prints them (protocol/README.md §6.12), so both must agree. */
function contractVectors(): Vector[] {
  const contract = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
  const block = /<!-- e2e test vectors -->\s*```json\n([\s\S]*?)```/.exec(contract)?.[1];
  if (block === undefined) throw new Error('protocol/README.md §6.12 has no test vector block');
  return JSON.parse(block) as Vector[];
}

/** A second implementation on node:crypto, written from the contract's words alone. */
function openWithNodeCrypto(vector: Vector): { keyCheck: string; text: string } {
  const ikm = Buffer.from(vector.key, 'base64url');
  const derive = (info: string, bytes: number) =>
    Buffer.from(hkdfSync('sha256', ikm, 'taco-chat/e2e/v1', `${info}\n${vector.room}`, bytes));
  const [prefix, iv = '', sealed = ''] = vector.body.split('.');
  expect(prefix).toBe('e1');
  const bytes = Buffer.from(sealed, 'base64url');
  const decipher = createDecipheriv(
    'aes-256-gcm',
    derive('taco-chat message key', 32),
    Buffer.from(iv, 'base64url'),
  );
  decipher.setAAD(Buffer.from(vector.room, 'utf8'));
  decipher.setAuthTag(bytes.subarray(bytes.length - 16));
  const text = Buffer.concat([
    decipher.update(bytes.subarray(0, bytes.length - 16)),
    decipher.final(),
  ]).toString('utf8');
  return { keyCheck: derive('taco-chat key check', 16).toString('base64url'), text };
}

describe('end-to-end encryption (§6.12)', () => {
  const vectors = contractVectors();

  test('the contract carries test vectors for two rooms under one key', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(3);
    expect(new Set(vectors.map((vector) => vector.room)).size).toBeGreaterThanOrEqual(2);
  });

  test.each(vectors.map((vector) => [vector.room, vector.text, vector] as const))(
    'encrypts and opens the vector of %s, %j, as the contract says',
    async (_room, _text, vector) => {
      const cipher = await roomCipher(vector.key, vector.room);
      expect(cipher.keyCheck).toBe(vector.key_check);
      expect(await cipher.encrypt(vector.text, fromBase64url(vector.iv))).toBe(vector.body);
      expect(await cipher.decrypt(vector.body)).toBe(vector.text);
      expect(openWithNodeCrypto(vector)).toEqual({ keyCheck: vector.key_check, text: vector.text });
    },
  );

  test('a ciphertext does not open in another room, under another key, or altered', async () => {
    const [vector] = vectors as [Vector];
    const other = await roomCipher(vector.key, `${vector.room}s`);
    expect(await other.decrypt(vector.body)).toBeNull();
    const wrongKey = await roomCipher(newRoomKey(), vector.room);
    expect(wrongKey.keyCheck).not.toBe(vector.key_check);
    expect(await wrongKey.decrypt(vector.body)).toBeNull();
    const right = await roomCipher(vector.key, vector.room);
    const flipped = vector.body.slice(0, -2) + (vector.body.endsWith('A') ? 'B' : 'A') + 'A';
    expect(await right.decrypt(flipped)).toBeNull();
    expect(await right.decrypt('hello')).toBeNull();
  });

  test('every message gets a fresh nonce', async () => {
    const cipher = await roomCipher(newRoomKey(), 'teal-otter');
    const bodies = await Promise.all(Array.from({ length: 50 }, () => cipher.encrypt('same')));
    expect(new Set(bodies.map((body) => body.split('.')[1])).size).toBe(50);
  });

  test('the longest text (4000 four-byte code points) fits the derived body limit', async () => {
    const cipher = await roomCipher(newRoomKey(), 'teal-otter');
    const body = await cipher.encrypt('🌮'.repeat(MESSAGE_MAX_LENGTH));
    expect(body.length).toBe(E2E_BODY_MAX_LENGTH);
    expect(E2E_BODY_MAX_LENGTH).toBe(21_375);
    expect(isCiphertextBody(body)).toBe(true);
    expect(isCiphertextBody(body + 'A')).toBe(false);
  });

  test('tells ciphertext bodies from plain text', () => {
    const nonce = 'oKGio6Slpqeoqaqr';
    expect(isCiphertextBody(`e1.${nonce}.${'A'.repeat(23)}`)).toBe(true);
    expect(isCiphertextBody(`e1.${nonce}.${'A'.repeat(22)}`)).toBe(false);
    expect(isCiphertextBody(`e1.${nonce}.${'A'.repeat(25)}`)).toBe(false);
    expect(isCiphertextBody(`e2.${nonce}.${'A'.repeat(24)}`)).toBe(false);
    expect(isCiphertextBody(`e1.${nonce}.${'A'.repeat(23)}=`)).toBe(false);
    expect(isCiphertextBody(` e1.${nonce}.${'A'.repeat(24)}`)).toBe(false);
    expect(isCiphertextBody('e1. hello there, this is just text')).toBe(false);
  });

  test('room keys are 43 base64url characters of fresh randomness', () => {
    const keys = new Set(Array.from({ length: 20 }, () => newRoomKey()));
    expect(keys.size).toBe(20);
    for (const key of keys) expect(isRoomKey(key)).toBe(true);
    expect(isRoomKey('short')).toBe(false);
    expect(isRoomKey(`${newRoomKey()}=`)).toBe(false);
  });

  test('refuses to derive from a key that is not one', async () => {
    await expect(roomCipher('not-a-key', 'teal-otter')).rejects.toThrow(
      'A room key is 43 base64url characters',
    );
  });
});
