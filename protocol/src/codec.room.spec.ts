import { decodeClientFrame, decodeServerFrame, FrameErrorMessage } from './codec';
import { E2E_BODY_MAX_LENGTH } from './e2e';
import { errorOf, frameOf } from './testing/spec-support';

const decode = (value: unknown, encrypted = false) =>
  decodeClientFrame(JSON.stringify(value), { encrypted });

const nonce = 'oKGio6Slpqeoqaqr';
const ciphertext = `e1.${nonce}.p0ZIYVCM_4Z-Vuvb3DZtJJC-TbQj6I6Z0ifQ2jrvt0g`;

describe('message bodies in encrypted and plain rooms (§6.12)', () => {
  test('an encrypted room stores a ciphertext body as it is', () => {
    expect(frameOf(decode({ type: 1, body: ciphertext, client_id: 'm-1' }, true))).toEqual({
      type: 1,
      body: ciphertext,
      client_id: 'm-1',
    });
  });

  test('an encrypted room takes the longest ciphertext, far over 4000 characters', () => {
    const longest = `e1.${nonce}.${'A'.repeat(E2E_BODY_MAX_LENGTH - 20)}`;
    expect(longest.length).toBe(E2E_BODY_MAX_LENGTH);
    expect(frameOf(decode({ type: 1, body: longest }, true))).toEqual({ type: 1, body: longest });
  });

  test.each([
    ['plain text', 'hello there'],
    ['an empty body', ''],
    ['a ciphertext one character too long', `e1.${nonce}.${'A'.repeat(E2E_BODY_MAX_LENGTH - 19)}`],
    ['another version', ciphertext.replace('e1.', 'e2.')],
  ])('an encrypted room refuses %s with encrypted_room', (_what, body) => {
    expect(errorOf(decode({ type: 1, body, client_id: 'm-2' }, true))).toEqual({
      code: 'encrypted_room',
      message: 'This room is end-to-end encrypted; messages must be encrypted',
      client_id: 'm-2',
    });
  });

  test('a plain room refuses a ciphertext with plain_room', () => {
    expect(errorOf(decode({ type: 1, body: ciphertext }))).toEqual({
      code: 'plain_room',
      message: 'This room is not end-to-end encrypted; send plain text',
    });
  });

  test('a plain room still takes text that merely starts like one', () => {
    for (const body of ['e1. is my favourite road', `e1.${nonce}.short`, 'e1.']) {
      expect(frameOf(decode({ type: 1, body }))).toEqual({ type: 1, body });
    }
  });

  test('a plain room keeps its own rules: empty and too long', () => {
    expect(errorOf(decode({ type: 1, body: '  ' })).code).toBe('empty_message');
    expect(errorOf(decode({ type: 1, body: 'x'.repeat(4001) })).code).toBe('too_long');
  });
});

describe('control frames (type 9, §6.9)', () => {
  test.each([
    [
      { type: 9, action: 'lock' },
      { type: 9, action: 'lock' },
    ],
    [
      { type: 9, action: 'unlock', name: 'ignored' },
      { type: 9, action: 'unlock' },
    ],
    [
      { type: 9, action: 'remove', name: 'Bob', client_id: 'c' },
      { type: 9, action: 'remove', name: 'Bob', client_id: 'c' },
    ],
    [
      { type: 9, action: 'hand_over', name: 'Bob' },
      { type: 9, action: 'hand_over', name: 'Bob' },
    ],
    [
      { type: 9, action: 'disappear', after: 3600 },
      { type: 9, action: 'disappear', after: 3600 },
    ],
    [
      { type: 9, action: 'disappear', after: 0 },
      { type: 9, action: 'disappear', after: 0 },
    ],
  ])('decodes %j', (input, expected) => {
    expect(frameOf(decode(input))).toStrictEqual(expected);
  });

  test.each<[unknown, string]>([
    [{ type: 9 }, FrameErrorMessage.action],
    [{ type: 9, action: 'kick' }, FrameErrorMessage.action],
    [{ type: 9, action: 'remove' }, FrameErrorMessage.name],
    [{ type: 9, action: 'hand_over', name: 7 }, FrameErrorMessage.name],
    [{ type: 9, action: 'disappear' }, "Field 'after' must be one of "],
    [{ type: 9, action: 'disappear', after: -1 }, "Field 'after' must be one of "],
    [{ type: 9, action: 'disappear', after: '3600' }, "Field 'after' must be one of "],
  ])('refuses %j with bad_frame', (input, message) => {
    expect(errorOf(decode({ ...(input as object), client_id: 'c-9' }))).toEqual({
      code: 'bad_frame',
      message,
      client_id: 'c-9',
    });
  });

  test('the action text names every action', () => {
    expect(FrameErrorMessage.action).toBe(
      "Field 'action' must be lock, unlock, remove, hand_over or disappear",
    );
    expect(FrameErrorMessage.disappearAfter([0, 60, 86400])).toBe(
      "Field 'after' must be one of 0, 60, 86400",
    );
  });
});

describe('room frames from the server (type 9)', () => {
  const room = {
    type: 9,
    room: 'teal-otter',
    encrypted: true,
    locked: false,
    disappear_after: 0,
    creator: 'Ann',
    is_creator: false,
  };

  test.each([
    room,
    { ...room, key_check: 'kCkgsYkkv54-WIGsWY4ydg' },
    { ...room, encrypted: false, key_check: null },
    { ...room, creator: null },
    { ...room, event: { action: 'lock', by: 'Ann' } },
    { ...room, event: { action: 'remove', by: 'Ann', name: 'Bob' } },
    { ...room, event: { action: 'disappear', by: 'Ann', after: 86400 } },
  ])('accepts %j', (frame) => {
    expect(frameOf(decodeServerFrame(JSON.stringify(frame)))).toEqual(frame);
  });

  test.each([
    { ...room, encrypted: 'yes' },
    { ...room, key_check: 5 },
    { ...room, key_check: false },
    { ...room, creator: 5 },
    { ...room, is_creator: undefined },
    { ...room, disappear_after: -1 },
    { ...room, event: { action: 'explode', by: 'Ann' } },
    { ...room, event: { action: 'remove', by: 'Ann', name: 3 } },
    { ...room, event: 'lock' },
  ])('refuses %j', (frame) => {
    expect(errorOf(decodeServerFrame(JSON.stringify(frame))).code).toBe('bad_frame');
  });
});
