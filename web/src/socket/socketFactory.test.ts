import { browserSocketFactory, type SocketHandlers, socketOrigin } from './socketFactory';

class FakeWebSocket {
  static readonly OPEN = 1;
  static last: FakeWebSocket | null = null;
  readyState = 0;
  sent: string[] = [];
  closed: [number, string] | null = null;
  onopen: (() => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number; reason: string }) => void) | null = null;
  onerror: (() => void) | null = null;
  constructor(readonly url: string) {
    FakeWebSocket.last = this;
  }
  send(text: string) {
    this.sent.push(text);
  }
  close(code: number, reason: string) {
    this.closed = [code, reason];
  }
}

describe('browser socket factory', () => {
  const original = globalThis.WebSocket;
  beforeEach(() => {
    Object.defineProperty(globalThis, 'WebSocket', { configurable: true, value: FakeWebSocket });
  });
  afterEach(() => {
    Object.defineProperty(globalThis, 'WebSocket', { configurable: true, value: original });
  });

  it('wires the browser socket to the handlers and sends only while open', () => {
    const handlers: SocketHandlers = {
      onOpen: jest.fn(),
      onMessage: jest.fn(),
      onClose: jest.fn(),
      onError: jest.fn(),
    };
    const error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const connection = browserSocketFactory('ws://host/x', handlers);
    const socket = FakeWebSocket.last!;
    expect(socket.url).toBe('ws://host/x');
    connection.send('early');
    expect(socket.sent).toEqual([]);
    socket.readyState = FakeWebSocket.OPEN;
    socket.onopen?.();
    connection.send('hello');
    expect(socket.sent).toEqual(['hello']);
    socket.onmessage?.({ data: '{"type":6}' });
    socket.onmessage?.({ data: new ArrayBuffer(2) });
    socket.onerror?.();
    socket.onclose?.({ code: 4401, reason: 'no' });
    connection.close(1000, 'bye');
    expect(handlers.onOpen).toHaveBeenCalled();
    expect(handlers.onMessage).toHaveBeenCalledTimes(1);
    expect(handlers.onMessage).toHaveBeenCalledWith('{"type":6}');
    expect(handlers.onError).toHaveBeenCalled();
    expect(handlers.onClose).toHaveBeenCalledWith(4401, 'no');
    expect(socket.closed).toEqual([1000, 'bye']);
    expect(error).toHaveBeenCalled();
    error.mockRestore();
  });

  it('uses wss: on https pages and ws: otherwise', () => {
    expect(socketOrigin({ protocol: 'https:', host: 'chat.example:8443' })).toBe(
      'wss://chat.example:8443',
    );
    expect(socketOrigin({ protocol: 'http:', host: 'localhost:3000' })).toBe('ws://localhost:3000');
  });
});
