import { CLIENT_FRAME_TYPES, ErrorCode, FrameType } from './frame-types';

describe('FrameType', () => {
  test('uses the spec numbers 1–5 and Taco Chat numbers 6 to 9', () => {
    expect(FrameType).toEqual({
      Message: 1,
      Typing: 2,
      Presence: 3,
      Clear: 4,
      History: 5,
      Heartbeat: 6,
      Error: 7,
      Rename: 8,
      Room: 9,
    });
  });

  test('numbers are distinct', () => {
    const numbers = Object.values(FrameType);
    expect(new Set(numbers).size).toBe(numbers.length);
  });
});

describe('CLIENT_FRAME_TYPES', () => {
  test('are message, typing, clear, history, heartbeat, rename and room control', () => {
    expect([...CLIENT_FRAME_TYPES].sort()).toEqual([1, 2, 4, 5, 6, 8, 9]);
  });

  test('exclude the server-only presence and error frames', () => {
    const types: readonly number[] = CLIENT_FRAME_TYPES;
    expect(types).not.toContain(FrameType.Presence);
    expect(types).not.toContain(FrameType.Error);
  });
});

describe('ErrorCode', () => {
  test('has the documented codes', () => {
    expect(ErrorCode).toEqual({
      BadFrame: 'bad_frame',
      UnknownType: 'unknown_type',
      EmptyMessage: 'empty_message',
      TooLong: 'too_long',
      RateLimited: 'rate_limited',
      Unavailable: 'unavailable',
      Unauthorized: 'unauthorized',
      NameTaken: 'name_taken',
      EncryptedRoom: 'encrypted_room',
      PlainRoom: 'plain_room',
      NotCreator: 'not_creator',
      NotPresent: 'not_present',
    });
  });
});
