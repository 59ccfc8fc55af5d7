import { isCiphertextBody } from './e2e';
import { ErrorCode, FrameType } from './frame-types';
import {
  type ChatMessage,
  type ClientFrame,
  type ClientHistoryFrame,
  type ErrorFrame,
  type HeartbeatFrame,
  ROOM_ACTIONS,
  type RoomAction,
  type ServerFrame,
} from './frames';
import {
  CLIENT_ID_MAX_LENGTH,
  EPOCH_MAX_LENGTH,
  HISTORY_COUNT_MAX,
  MESSAGE_MAX_LENGTH,
  TOKEN_MAX_LENGTH,
} from './limits';
import { NAME_TAKEN_MESSAGE } from './http';
import { codePointLength, isBlankText } from './validation';

/** An error frame without its type: what to answer a frame with. */
export type FrameError = Omit<ErrorFrame, 'type'>;

export type DecodeResult<T> = { ok: true; frame: T } | { ok: false; error: FrameError };

/** The human texts of the error frames, written once. */
export const FrameErrorMessage = {
  notJson: 'A frame must be JSON text',
  notObject: 'A frame must be a JSON object',
  binary: 'Binary frames are not accepted; send JSON text',
  type: "Field 'type' must be a frame type number",
  unknownType: (type: number) => `Unknown frame type ${type}`,
  body: "Field 'body' must be a string",
  emptyMessage: 'Messages cannot be empty',
  bodyTooLong: `Messages can be at most ${MESSAGE_MAX_LENGTH} characters`,
  clientId: "Field 'client_id' must be a string",
  clientIdTooLong: `Field 'client_id' can be at most ${CLIENT_ID_MAX_LENGTH} characters`,
  typing: "Field 'typing' must be true or false",
  count: `Field 'count' must be a whole number from 1 to ${HISTORY_COUNT_MAX}`,
  after: "Field 'after' must be a whole number of 0 or more",
  epoch: `Field 'epoch' must be a string of at most ${EPOCH_MAX_LENGTH} characters`,
  token: `Field 'token' must be a string of 1 to ${TOKEN_MAX_LENGTH} characters`,
  renameRefused: 'That token is not valid for this room',
  encryptedRoom: 'This room is end-to-end encrypted; messages must be encrypted',
  plainRoom: 'This room is not end-to-end encrypted; send plain text',
  action: `Field 'action' must be ${ROOM_ACTIONS.slice(0, -1).join(', ')} or ${ROOM_ACTIONS.at(-1)}`,
  name: "Field 'name' must be a string",
  disappearAfter: (choices: readonly number[]) =>
    `Field 'after' must be one of ${choices.join(', ')}`,
  notCreator: "Only the room's creator can do that",
  notPresent: 'Choose someone else who is in the room',
  rateLimited: 'You are sending too fast; please slow down',
  unavailable: 'The server could not store that; please try again',
} as const;

function fail(
  code: ErrorCode,
  message: string,
  clientId?: string,
): { ok: false; error: FrameError } {
  return {
    ok: false,
    error: clientId === undefined ? { code, message } : { code, message, client_id: clientId },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isWholeNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function parseJsonObject(
  text: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; error: FrameError } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return fail(ErrorCode.BadFrame, FrameErrorMessage.notJson);
  }
  if (!isRecord(value)) return fail(ErrorCode.BadFrame, FrameErrorMessage.notObject);
  return { ok: true, value };
}

/** `frame` with the valid `client_id` it came with, if any (see `ClientTaggedFrame`). */
function tagged<F extends Exclude<ClientFrame, HeartbeatFrame>>(
  frame: F,
  clientId: string | undefined,
): F {
  return clientId === undefined ? frame : { ...frame, client_id: clientId };
}

/** What the codec must know of the room a frame is for. */
export interface DecodeOptions {
  /** The room is end-to-end encrypted: message bodies must be ciphertext (§6.12). */
  encrypted?: boolean;
}

/** A message body's error in a room, or undefined when the body may be stored (§3.5, §6.12). */
function bodyError(body: string, encrypted: boolean): FrameError | undefined {
  if (encrypted) {
    return isCiphertextBody(body)
      ? undefined
      : { code: ErrorCode.EncryptedRoom, message: FrameErrorMessage.encryptedRoom };
  }
  if (isBlankText(body)) {
    return { code: ErrorCode.EmptyMessage, message: FrameErrorMessage.emptyMessage };
  }
  if (body.startsWith('e1.') && isCiphertextBody(body)) {
    return { code: ErrorCode.PlainRoom, message: FrameErrorMessage.plainRoom };
  }
  if (body.length > MESSAGE_MAX_LENGTH && codePointLength(body) > MESSAGE_MAX_LENGTH) {
    return { code: ErrorCode.TooLong, message: FrameErrorMessage.bodyTooLong };
  }
  return undefined;
}

function decodeControl(
  raw: Record<string, unknown>,
  echo: string | undefined,
): DecodeResult<ClientFrame> {
  const action = raw.action as RoomAction;
  const type = FrameType.Room;
  switch (action) {
    case 'lock':
    case 'unlock':
      return { ok: true, frame: tagged({ type, action }, echo) };
    case 'remove':
    case 'hand_over':
      if (typeof raw.name !== 'string')
        return fail(ErrorCode.BadFrame, FrameErrorMessage.name, echo);
      return { ok: true, frame: tagged({ type, action, name: raw.name }, echo) };
    case 'disappear':
      // Which values a deployment offers is the server's to judge (§6.13).
      if (!isWholeNumber(raw.after)) {
        return fail(ErrorCode.BadFrame, FrameErrorMessage.disappearAfter([]), echo);
      }
      return { ok: true, frame: tagged({ type, action, after: raw.after }, echo) };
    default:
      return fail(ErrorCode.BadFrame, FrameErrorMessage.action, echo);
  }
}

/**
 * Turns untrusted text from a client into a typed frame, or the precise error to answer with.
 * Unknown extra fields are ignored; a message body is trimmed.
 */
export function decodeClientFrame(
  text: string,
  options: DecodeOptions = {},
): DecodeResult<ClientFrame> {
  const parsed = parseJsonObject(text);
  return parsed.ok ? decodeClientValue(parsed.value, options) : parsed;
}

/**
 * `decodeClientFrame` for a value already parsed from JSON by a transport (Socket.IO, say): the
 * same rules and errors.
 */
export function decodeClientValue(
  value: unknown,
  options: DecodeOptions = {},
): DecodeResult<ClientFrame> {
  if (!isRecord(value)) return fail(ErrorCode.BadFrame, FrameErrorMessage.notObject);
  const raw = value;
  const type = raw.type;
  // A valid client_id rides on any error about the rest of the frame, whatever its type, so the
  // client knows which of its frames was refused.
  const clientId = raw.client_id;
  const echo =
    typeof clientId === 'string' && codePointLength(clientId) <= CLIENT_ID_MAX_LENGTH
      ? clientId
      : undefined;
  if (typeof type !== 'number' || !Number.isInteger(type)) {
    return fail(ErrorCode.BadFrame, FrameErrorMessage.type, echo);
  }
  switch (type) {
    case FrameType.Message: {
      let clientIdError: FrameError | undefined;
      if (clientId !== undefined && echo === undefined) {
        clientIdError =
          typeof clientId === 'string'
            ? { code: ErrorCode.TooLong, message: FrameErrorMessage.clientIdTooLong }
            : { code: ErrorCode.BadFrame, message: FrameErrorMessage.clientId };
      }
      if (typeof raw.body !== 'string') {
        return fail(ErrorCode.BadFrame, FrameErrorMessage.body, echo);
      }
      const body = raw.body.trim();
      const error = bodyError(body, options.encrypted === true);
      if (error) return fail(error.code, error.message, echo);
      if (clientIdError) return { ok: false, error: clientIdError };
      // Written out (no spread): every chat message is decoded here.
      return {
        ok: true,
        frame: echo === undefined ? { type, body } : { type, body, client_id: echo },
      };
    }
    case FrameType.Typing:
      if (typeof raw.typing !== 'boolean')
        return fail(ErrorCode.BadFrame, FrameErrorMessage.typing, echo);
      return { ok: true, frame: tagged({ type, typing: raw.typing }, echo) };
    case FrameType.Clear:
      return { ok: true, frame: tagged({ type }, echo) };
    case FrameType.History: {
      const { count, after, epoch } = raw;
      if (!isWholeNumber(count) || count < 1 || count > HISTORY_COUNT_MAX) {
        return fail(ErrorCode.BadFrame, FrameErrorMessage.count, echo);
      }
      const frame: ClientHistoryFrame = { type, count };
      if (after !== undefined && after !== null) {
        if (!isWholeNumber(after)) return fail(ErrorCode.BadFrame, FrameErrorMessage.after, echo);
        frame.after = after;
      }
      if (epoch !== undefined && epoch !== null) {
        if (typeof epoch !== 'string' || codePointLength(epoch) > EPOCH_MAX_LENGTH) {
          return fail(ErrorCode.BadFrame, FrameErrorMessage.epoch, echo);
        }
        frame.epoch = epoch;
      }
      return { ok: true, frame: tagged(frame, echo) };
    }
    case FrameType.Heartbeat:
      return { ok: true, frame: { type } };
    case FrameType.Rename: {
      const { token } = raw;
      if (typeof token !== 'string' || token === '' || codePointLength(token) > TOKEN_MAX_LENGTH) {
        return fail(ErrorCode.BadFrame, FrameErrorMessage.token, echo);
      }
      return { ok: true, frame: tagged({ type, token }, echo) };
    }
    case FrameType.Room:
      return decodeControl(raw, echo);
    default:
      return fail(ErrorCode.UnknownType, FrameErrorMessage.unknownType(type), echo);
  }
}

/** The error to answer a binary frame with. */
export const BINARY_FRAME_ERROR: FrameError = {
  code: ErrorCode.BadFrame,
  message: FrameErrorMessage.binary,
};

/** The error to answer a frame over its rate limit with. */
export const RATE_LIMITED_ERROR: FrameError = {
  code: ErrorCode.RateLimited,
  message: FrameErrorMessage.rateLimited,
};

/** The error to answer a rename frame with when its token is not valid for the room. */
export const RENAME_REFUSED_ERROR: FrameError = {
  code: ErrorCode.Unauthorized,
  message: FrameErrorMessage.renameRefused,
};

/** The error to answer a rename frame with when the new name is connected in the room. */
export const NAME_TAKEN_ERROR: FrameError = {
  code: ErrorCode.NameTaken,
  message: NAME_TAKEN_MESSAGE,
};

/** The error to answer a frame with when the server could not do what it asked (storage down). */
export const UNAVAILABLE_ERROR: FrameError = {
  code: ErrorCode.Unavailable,
  message: FrameErrorMessage.unavailable,
};

/**
 * The error frame for an error; `clientId` (or the error's own `client_id`) is the valid
 * `client_id` of the frame it answers, if that frame carried one.
 */
export function errorFrame(
  error: FrameError,
  clientId: string | undefined = error.client_id,
): ErrorFrame {
  return clientId === undefined
    ? { type: FrameType.Error, code: error.code, message: error.message }
    : { type: FrameType.Error, code: error.code, message: error.message, client_id: clientId };
}

/** Serializes any frame. The one place frames become text. */
export function encodeFrame(frame: ServerFrame | ClientFrame): string {
  return JSON.stringify(frame);
}

function isChatMessage(value: unknown): value is ChatMessage {
  return (
    isRecord(value) &&
    typeof value.sender === 'string' &&
    typeof value.body === 'string' &&
    typeof value.timestamp === 'number' &&
    typeof value.seq === 'number'
  );
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

/**
 * Turns text from a server into a typed frame. Clients use it so that a frame of an unexpected
 * shape is reported instead of corrupting their state.
 */
export function decodeServerFrame(text: string): DecodeResult<ServerFrame> {
  const parsed = parseJsonObject(text);
  if (!parsed.ok) return parsed;
  const raw = parsed.value;
  const bad = fail(ErrorCode.BadFrame, `Unexpected server frame: ${text.slice(0, 200)}`);
  switch (raw.type) {
    case FrameType.Message:
      if (Array.isArray(raw.messages)) {
        if (
          !isString(raw.room) ||
          !isString(raw.epoch) ||
          typeof raw.complete !== 'boolean' ||
          !raw.messages.every(isChatMessage)
        ) {
          return bad;
        }
        return { ok: true, frame: raw as unknown as ServerFrame };
      }
      if (!isString(raw.room) || !isString(raw.epoch) || !isChatMessage(raw)) return bad;
      if (raw.client_id !== undefined && !isString(raw.client_id)) return bad;
      return { ok: true, frame: raw as unknown as ServerFrame };
    case FrameType.Typing:
      if (!isString(raw.room) || !isString(raw.sender) || typeof raw.typing !== 'boolean')
        return bad;
      return { ok: true, frame: raw as unknown as ServerFrame };
    case FrameType.Presence:
      if (!isString(raw.room) || !isString(raw.sender) || typeof raw.connecting !== 'boolean') {
        return bad;
      }
      if (raw.renamed_from !== undefined && !isString(raw.renamed_from)) return bad;
      if (raw.renamed_to !== undefined && !isString(raw.renamed_to)) return bad;
      return { ok: true, frame: raw as unknown as ServerFrame };
    case FrameType.Clear:
      if (!isString(raw.room) || !isString(raw.sender)) return bad;
      return { ok: true, frame: raw as unknown as ServerFrame };
    case FrameType.Heartbeat:
      return { ok: true, frame: { type: FrameType.Heartbeat } };
    case FrameType.Error:
      if (!isString(raw.code) || !isString(raw.message)) return bad;
      if (raw.client_id !== undefined && !isString(raw.client_id)) return bad;
      return { ok: true, frame: raw as unknown as ServerFrame };
    case FrameType.Room:
      return isRoomFrame(raw) ? { ok: true, frame: raw as unknown as ServerFrame } : bad;
    default:
      return bad;
  }
}

function isRoomFrame(raw: Record<string, unknown>): boolean {
  const event = raw.event;
  return (
    isString(raw.room) &&
    typeof raw.encrypted === 'boolean' &&
    (raw.key_check === undefined || raw.key_check === null || isString(raw.key_check)) &&
    typeof raw.locked === 'boolean' &&
    isWholeNumber(raw.disappear_after) &&
    (raw.creator === null || isString(raw.creator)) &&
    typeof raw.is_creator === 'boolean' &&
    (event === undefined ||
      (isRecord(event) &&
        ROOM_ACTIONS.includes(event.action as RoomAction) &&
        isString(event.by) &&
        (event.name === undefined || isString(event.name)) &&
        (event.after === undefined || isWholeNumber(event.after))))
  );
}
