/** The HTTP half of the contract: paths, bodies and answers. */

export const API_PREFIX = '/api';

const enc = encodeURIComponent;

export const ApiPath = {
  createRoom: `${API_PREFIX}/room`,
  roomCredentials: (room: string) => `${API_PREFIX}/room/${enc(room)}`,
  roomSocket: (room: string, token: string) =>
    `${API_PREFIX}/room/${enc(room)}/ws?token=${enc(token)}`,
  roomTicket: (room: string) => `${API_PREFIX}/room/${enc(room)}/ticket`,
  /** A generated name of a room that does not exist yet. */
  roomName: `${API_PREFIX}/room-name`,
  /** How many people are in a room. */
  roomInfo: (room: string) => `${API_PREFIX}/room/${enc(room)}`,
  /** The room socket with a single-use ticket instead of the token. */
  roomSocketWithTicket: (room: string, ticket: string) =>
    `${API_PREFIX}/room/${enc(room)}/ws?ticket=${enc(ticket)}`,
  healthLive: `${API_PREFIX}/health/live`,
  healthReady: `${API_PREFIX}/health/ready`,
  metrics: `${API_PREFIX}/metrics`,
} as const;

/** Web app routes. */
export const WebRoute = {
  create: '/',
  account: '/a',
  room: (room: string) => `/r/${enc(room)}`,
} as const;

const SOCKET_PATH = /^\/api\/room\/([^/]+)\/ws\/?$/;

/** The room id of a socket path `/api/room/:room_id/ws`, or `null` when the path is not one. */
export function parseSocketPath(pathname: string): string | null {
  const match = SOCKET_PATH.exec(pathname);
  if (!match?.[1]) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return null;
  }
}

/** A room's settings as HTTP answers carry them (protocol/README.md §6.9). */
export interface RoomSettings {
  encrypted: boolean;
  /** The key check of an encrypted room (§6.12); null in a plain room. */
  key_check: string | null;
  locked: boolean;
  /** Seconds after which messages disappear; 0: never (§6.13). */
  disappear_after: number;
  /** The values `disappear_after` may take in this deployment. */
  disappear_choices: number[];
  /** The creator's name, in answers to a credential holder only; null when the room has none. */
  creator?: string | null;
}

/** `POST /api/room`: `sender_id` is accepted in place of `sender`; the settings are optional. */
export interface CreateRoomRequest {
  room_id: string;
  sender?: string;
  sender_id?: string;
  encrypted?: boolean;
  key_check?: string;
  disappear_after?: number;
}

export interface CreateRoomResponse {
  name: string;
  room: string;
  token: string;
  /** True when this call created the room: the credential holds its creator right. */
  creator: boolean;
  settings: RoomSettings;
}

/** `POST /api/room/:room_id`: `sender` is accepted in place of `sender_id`. */
export interface RoomCredentialsRequest {
  sender_id?: string;
  sender?: string;
}

export interface RoomCredentialsResponse {
  room_id: string;
  sender_id: string;
  token: string;
  settings: RoomSettings;
}

/**
 * `POST /api/room/:room_id/ticket` (no body; `Authorization: Bearer <token>` for that room): 201
 * with a ticket that opens one socket of that room, once, within `TICKET_TTL_SECONDS`.
 */
export interface RoomTicketResponse {
  ticket: string;
}

export const TICKET_TTL_SECONDS = 30;

/** `GET /api/room-name`: a generated `colour-animal` name no room uses (no one in it, no history). */
export interface RoomNameResponse {
  room_id: string;
  /** The `disappear_after` values a new room may take (§6.13). */
  disappear_choices: number[];
}

/** `GET /api/room/:room_id`: how many distinct names are connected there now (never who). */
export interface RoomInfoResponse {
  room_id: string;
  participants: number;
  /** The room's settings without `creator`; null for a room that does not exist. */
  settings: RoomSettings | null;
}

/** Every error answer of the API. */
export interface ApiErrorBody {
  statusCode: number;
  error: string;
  message: string | string[];
}

// The `message` of the API's error answers (besides the validation texts), written once.
export const NAME_TAKEN_MESSAGE = 'That name is already taken in this room';
export const RATE_LIMITED_MESSAGE = 'Too many requests; please try again shortly';
export const STORAGE_UNAVAILABLE_MESSAGE = 'Chat is briefly unavailable; please try again';
/** 503 from `GET /api/room-name` when every name drawn was in use (practically never). */
export const NO_FREE_ROOM_NAME_MESSAGE = 'No free room name was found; please try again';
/** 401 from the ticket call: the Bearer token is missing, invalid or for another room. */
export const TICKET_UNAUTHORIZED_MESSAGE = 'A valid token for this room is required';
/** 400: a body that is JSON, but not a JSON object. */
export const BODY_NOT_OBJECT_MESSAGE = 'The request body must be a JSON object';
/** 400: a body that is not JSON at all (malformed, cut short, only whitespace). */
export const BODY_NOT_JSON_MESSAGE = 'The request body is not valid JSON';
/** 415: a request body not sent as JSON (`Content-Type: application/json`). */
export const BODY_NOT_JSON_TYPE_MESSAGE =
  'Request bodies must be JSON, sent with Content-Type: application/json';
/** 500: anything unexpected; never a detail. */
export const SERVER_ERROR_MESSAGE = 'Something went wrong on our side';
/** 503 from `GET /api/health/ready`: the replica is draining, or cannot reach its storage. */
export const DRAINING_MESSAGE = 'Draining';
export const STORAGE_UNREACHABLE_MESSAGE = 'Storage unreachable';
/** 409 from `POST /api/room` asking for settings for a room that exists (§2.2). */
export const ROOM_EXISTS_MESSAGE = 'That room already exists';
/** 423 from the credential calls while the room is locked (§6.10). */
export const ROOM_LOCKED_MESSAGE = 'This room is locked';
/** 403 from the ticket call for a removed holder (§6.11). */
export const REMOVED_MESSAGE = 'You were removed from this room';
/** 403 from the credential calls for a name barred after a removal (§6.11). */
export const NAME_REMOVED_MESSAGE = 'That name was removed from this room; please choose another';
/** 400 validation texts of the room settings (§2.2). */
export const ENCRYPTED_FIELD_MESSAGE = "Field 'encrypted' must be true or false";
export const KEY_CHECK_FIELD_MESSAGE =
  'An encrypted room needs a key check of 22 base64url characters';
export const disappearFieldMessage = (choices: readonly number[]) =>
  `Field 'disappear_after' must be one of ${choices.join(', ')}`;
/** 503 from the load balancer when no replica answers. */
export const RESTARTING_MESSAGE = 'Taco Chat is restarting; please try again shortly';
