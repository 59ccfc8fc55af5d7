/** What the socket middleware hears from a connection. */
export interface SocketHandlers {
  onOpen(): void;
  onMessage(text: string): void;
  onClose(code: number, reason: string): void;
  onError(): void;
}

/** What the socket middleware does with a connection. */
export interface SocketConnection {
  send(text: string): void;
  close(code: number, reason: string): void;
}

/** Opens a connection; tests pass a fake one. */
export type SocketFactory = (url: string, handlers: SocketHandlers) => SocketConnection;

/** A browser WebSocket behind the small interface the middleware uses. */
export const browserSocketFactory: SocketFactory = (url, handlers) => {
  const socket = new WebSocket(url);
  socket.onopen = () => handlers.onOpen();
  socket.onmessage = (event: MessageEvent<unknown>) => {
    if (typeof event.data === 'string') handlers.onMessage(event.data);
    else console.error('Taco Chat: ignored a binary frame from the server');
  };
  socket.onclose = (event) => handlers.onClose(event.code, event.reason);
  socket.onerror = () => handlers.onError();
  return {
    send: (text) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(text);
    },
    close: (code, reason) => socket.close(code, reason),
  };
};

/** `ws:` or `wss:` and the host of the page, matching `http:` or `https:`. */
export function socketOrigin(location: Pick<Location, 'protocol' | 'host'>): string {
  return `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}`;
}
