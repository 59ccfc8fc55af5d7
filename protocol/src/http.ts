/** The HTTP half of the contract: paths, bodies and answers. */

export const API_PREFIX = '/api';

const enc = encodeURIComponent;

export const ApiPath = {
  createRoom: `${API_PREFIX}/room`,
  roomCredentials: (room: string) => `${API_PREFIX}/room/${enc(room)}`,
  roomSocket: (room: string, token: string) =>
    `${API_PREFIX}/room/${enc(room)}/ws?token=${enc(token)}`,
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

/** `POST /api/room`: `sender_id` is accepted in place of `sender`. */
export interface CreateRoomRequest {
  room_id: string;
  sender?: string;
  sender_id?: string;
}

export interface CreateRoomResponse {
  name: string;
  room: string;
  token: string;
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
}

/** Every error answer of the API. */
export interface ApiErrorBody {
  statusCode: number;
  error: string;
  message: string | string[];
}

export const NAME_TAKEN_MESSAGE = 'That name is already taken in this room';
export const RATE_LIMITED_MESSAGE = 'Too many requests; please try again shortly';
export const STORAGE_UNAVAILABLE_MESSAGE = 'Chat is briefly unavailable; please try again';
