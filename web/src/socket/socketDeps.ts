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
  notify: (sender: string, message: string) => void;
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
});
