/**
 * What most teams would pick: Socket.IO 4 with @socket.io/redis-adapter (ioredis pub/sub), rooms
 * via socket.join and io.to(room).emit, storing each message with the same Lua script as the raw
 * peer (seq, history list, trim, expiry) before broadcasting the frame Taco Chat would send.
 *
 *   PORT=4001 REDIS_URL=redis://127.0.0.1:6379 tsx loadtest/peers/socketio-server.ts
 * Client: io('http://127.0.0.1:PORT', { transports: ['websocket'], query: { room, name } });
 * events 'message' both ways carry Taco Chat's frames as objects.
 */
import { createServer } from 'node:http';
import { createAdapter } from '@socket.io/redis-adapter';
import Redis from 'ioredis';
import { Server } from 'socket.io';
import { ErrorCode, errorFrame, FrameErrorMessage, FrameType } from '@taco/protocol';
import { defineCommands, peerEnvironment, storeMessage, validMessage } from './store';

const { port, redisUrl } = peerEnvironment();
const UNSUPPORTED = errorFrame({
  code: ErrorCode.BadFrame,
  message: 'This peer takes message frames',
});
const UNAVAILABLE = errorFrame({
  code: ErrorCode.Unavailable,
  message: FrameErrorMessage.unavailable,
});
const redis = defineCommands(new Redis(redisUrl));
const pub = new Redis(redisUrl);
const sub = new Redis(redisUrl);

const httpServer = createServer((req, res) => {
  // Socket.IO answers its own path; everything else lands here.
  res.writeHead(req.url === '/health' ? 200 : 404).end();
});
const io = new Server(httpServer, {
  transports: ['websocket'],
  perMessageDeflate: false,
  serveClient: false,
  adapter: createAdapter(pub, sub),
});

io.on('connection', (socket) => {
  const { room, name } = socket.handshake.query;
  if (typeof room !== 'string' || typeof name !== 'string') {
    socket.disconnect(true);
    return;
  }
  void socket.join(room);
  io.to(room).emit('presence', { type: FrameType.Presence, room, sender: name, connecting: true });
  socket.on('message', (frame: unknown) => {
    const message = validMessage(frame);
    if (!message) {
      socket.emit('message', UNSUPPORTED);
      return;
    }
    const timestamp = Date.now() / 1000;
    storeMessage(redis, room, name, message.body, timestamp)
      .then((seq) => {
        io.to(room).emit('message', {
          type: FrameType.Message,
          room,
          sender: name,
          body: message.body,
          timestamp,
          seq,
          ...(message.clientId === undefined ? {} : { client_id: message.clientId }),
        });
      })
      .catch(() => socket.emit('message', UNAVAILABLE));
  });
  socket.on('disconnect', () => {
    io.to(room).emit('presence', {
      type: FrameType.Presence,
      room,
      sender: name,
      connecting: false,
    });
  });
});

httpServer.listen(port, '127.0.0.1');

const stop = () => {
  void io.close();
  redis.disconnect();
  pub.disconnect();
  sub.disconnect();
  setTimeout(() => process.exit(0), 100).unref();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
