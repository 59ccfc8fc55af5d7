/**
 * Frame type numbers on the WebSocket. 1–5 come from the product spec; 6, 7, 8 and 9 are Taco
 * Chat's own (8, rename, is client → server only; 9 is a control from a client and the room's
 * settings from the server, protocol/README.md §6.9).
 * A number means a different thing in each direction only where the spec says so (4 is "clear"
 * from a client and "cleared" from the server; 1 carries a single message or a history batch).
 */
export const FrameType = {
  Message: 1,
  Typing: 2,
  Presence: 3,
  Clear: 4,
  History: 5,
  Heartbeat: 6,
  Error: 7,
  Rename: 8,
  /** Client: the creator changes the room. Server: the room's settings (and what changed). */
  Room: 9,
} as const;

export type FrameType = (typeof FrameType)[keyof typeof FrameType];

/** The frame types a client may send. */
export const CLIENT_FRAME_TYPES = [
  FrameType.Message,
  FrameType.Typing,
  FrameType.Clear,
  FrameType.History,
  FrameType.Heartbeat,
  FrameType.Rename,
  FrameType.Room,
] as const;

export type ClientFrameType = (typeof CLIENT_FRAME_TYPES)[number];

/** Error codes carried by server frame type 7. */
export const ErrorCode = {
  BadFrame: 'bad_frame',
  UnknownType: 'unknown_type',
  EmptyMessage: 'empty_message',
  TooLong: 'too_long',
  RateLimited: 'rate_limited',
  Unavailable: 'unavailable',
  /** A rename frame's token is not a valid token for the connection's room. */
  Unauthorized: 'unauthorized',
  /** A rename frame names someone connected in the room right now. */
  NameTaken: 'name_taken',
  /** A plain body in an end-to-end encrypted room (§6.12). */
  EncryptedRoom: 'encrypted_room',
  /** A ciphertext body in a plain room (§6.12). */
  PlainRoom: 'plain_room',
  /** A control frame from a connection that does not hold the creator right (§6.9). */
  NotCreator: 'not_creator',
  /** A remove or hand-over naming no one else present (§6.9, §6.11). */
  NotPresent: 'not_present',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];
