import { ApiPath, type RoomTicketResponse } from '@taco/protocol';
import { showNotification } from './notifications';
import type { ReconnectClock, TimerId } from './reconnectMachine';
import { browserSocketFactory, type SocketFactory, socketOrigin } from './socketFactory';

/** Everything the socket middleware needs from the outside world, so tests can inject it. */
export interface SocketDeps extends ReconnectClock {
  createSocket: SocketFactory;
  /** `ws://host` or `wss://host`. */
  socketOrigin: () => string;
  /** Milliseconds since the epoch. */
  now: () => number;
  setInterval: (callback: () => void, ms: number) => TimerId;
  clearInterval: (id: TimerId) => void;
  /** Shows a browser notification: the sender, then the message, with the room's tag. */
  notify: (sender: string, message: string, tag: string) => void;
  /**
   * Exchanges the room token for a single-use socket ticket, so the socket's URL never holds the
   * token. Without it the socket carries the token itself (`?token=`).
   */
  fetchTicket?: (room: string, token: string) => Promise<TicketResult>;
}

/** A ticket, or the HTTP status that refused one (0: the server could not be reached). */
export type TicketResult = { ticket: string } | { status: number };

/** `POST /api/room/:room_id/ticket` with the token as a Bearer header. */
export async function fetchTicket(room: string, token: string): Promise<TicketResult> {
  try {
    const response = await fetch(ApiPath.roomTicket(room), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    if (response.status !== 201) return { status: response.status };
    return { ticket: ((await response.json()) as RoomTicketResponse).ticket };
  } catch {
    return { status: 0 };
  }
}

export const defaultSocketDeps = (): SocketDeps => ({
  createSocket: browserSocketFactory,
  socketOrigin: () => socketOrigin(window.location),
  random: () => Math.random(),
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (id) => clearTimeout(id),
  setInterval: (callback, ms) => setInterval(callback, ms),
  clearInterval: (id) => clearInterval(id),
  notify: showNotification,
  fetchTicket,
});
