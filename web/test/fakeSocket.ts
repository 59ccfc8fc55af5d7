import { encodeFrame, type ServerFrame } from '@taco/protocol';
import type { SocketConnection, SocketFactory, SocketHandlers } from '../src/socket/socketFactory';
import type { SocketDeps } from '../src/socket/socketDeps';

/** One fake connection: records what the client sent and lets a test play the server. */
export class FakeSocket implements SocketConnection {
  readonly sent: unknown[] = [];
  closedWith: number | null = null;

  constructor(
    readonly url: string,
    private readonly handlers: SocketHandlers,
  ) {}

  send(text: string): void {
    this.sent.push(JSON.parse(text));
  }

  close(code: number): void {
    this.closedWith = code;
  }

  serverOpen(): void {
    this.handlers.onOpen();
  }

  serverSend(frame: ServerFrame): void {
    this.handlers.onMessage(encodeFrame(frame));
  }

  serverSendText(text: string): void {
    this.handlers.onMessage(text);
  }

  serverClose(code: number): void {
    this.handlers.onClose(code, '');
  }
}

/** Socket dependencies for tests: fake sockets, real (fakeable) timers, fixed randomness. */
export function fakeSocketDeps(overrides: Partial<SocketDeps> = {}) {
  const sockets: FakeSocket[] = [];
  const notifications: Array<[string, string]> = [];
  const tags: string[] = [];
  const createSocket: SocketFactory = (url, handlers) => {
    const socket = new FakeSocket(url, handlers);
    sockets.push(socket);
    return socket;
  };
  const deps: Partial<SocketDeps> = {
    createSocket,
    socketOrigin: () => 'ws://chat.test',
    random: () => 0.5,
    notify: (sender, message, tag) => {
      notifications.push([sender, message]);
      tags.push(tag);
    },
    // Sockets carry the token unless a test hands in a ticket service.
    fetchTicket: undefined,
    ...overrides,
  };
  const last = (): FakeSocket => {
    const socket = sockets[sockets.length - 1];
    if (!socket) throw new Error('No socket was opened');
    return socket;
  };
  return { deps, sockets, notifications, tags, last };
}
