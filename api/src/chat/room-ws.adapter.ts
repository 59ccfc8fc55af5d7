import { type IncomingMessage } from 'node:http';
import { type Duplex } from 'node:stream';
import { type INestApplicationContext, Logger } from '@nestjs/common';
import { type MessageMappingProperties } from '@nestjs/websockets';
import { WsAdapter } from '@nestjs/platform-ws';
import {
  BINARY_FRAME_ERROR,
  decodeClientFrame,
  encodeFrame,
  errorFrame,
  ErrorCode,
  FRAME_MAX_BYTES,
  type FrameError,
  FrameErrorMessage,
  FrameType,
  parseSocketPath,
  type ServerFrame,
} from '@taco/protocol';
import { type Observable } from 'rxjs';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import { HealthService } from '../health/health.service';
import { MetricsService } from '../metrics/metrics.service';

const NOT_FOUND = 'HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n';
/** While draining, a new socket is refused before the upgrade, so a load balancer tries another replica. */
const DRAINING =
  'HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: 0\r\n\r\n';

/**
 * Nest's `ws` adapter, shaped for the chat contract:
 * - upgrades are routed by the pattern `/api/room/:room_id/ws` on the application's own server,
 *   and refused with 503 while the replica drains;
 * - frames over the frame limit close with 1009, and nothing is compressed;
 * - every inbound frame goes through the protocol codec: a bad one is answered with an error
 *   frame (type 7) and never reaches a handler; a good one goes to the handler of its type.
 */
export class RoomWsAdapter extends WsAdapter {
  private readonly log = new Logger(RoomWsAdapter.name);
  private readonly metrics: MetricsService;
  private readonly health: HealthService;

  constructor(app: INestApplicationContext) {
    super(app);
    this.metrics = app.get(MetricsService);
    this.health = app.get(HealthService);
  }

  override create(): WebSocketServer {
    const server = new WebSocketServer({
      noServer: true,
      maxPayload: FRAME_MAX_BYTES,
      perMessageDeflate: false,
      clientTracking: true,
    });
    server.on('error', (error) => this.log.error(`WebSocket server error: ${error.message}`));
    server.on('connection', (socket: WebSocket) =>
      socket.on('error', (error) => this.log.warn(`WebSocket error: ${error.message}`)),
    );
    const httpServer = this.httpServer as { on(event: 'upgrade', listener: UpgradeListener): void };
    httpServer.on('upgrade', (request, socket, head) => {
      const pathname = (request.url ?? '/').split('?', 1)[0] ?? '/';
      if (parseSocketPath(pathname) === null) {
        socket.end(NOT_FOUND);
        return;
      }
      if (this.health.isDraining) {
        socket.end(DRAINING);
        return;
      }
      server.handleUpgrade(request, socket, head, (ws) => server.emit('connection', ws, request));
    });
    return server;
  }

  override bindMessageHandlers(
    client: WebSocket,
    handlers: MessageMappingProperties[],
    _transform: (data: unknown) => Observable<unknown>,
  ): void {
    const byType = new Map(
      handlers.map((handler) => [handler.message as string, handler.callback]),
    );
    // Every answer to a frame goes out here, so every error frame is counted here too.
    const reply = (frame: ServerFrame | undefined | null) => {
      if (!frame || client.readyState !== WebSocket.OPEN) return;
      client.send(encodeFrame(frame));
      this.metrics.framesOut.inc();
      if (frame.type === FrameType.Error) this.metrics.errorFrames.inc(frame.code);
    };
    const refuse = (error: FrameError) => reply(errorFrame(error));
    client.on('message', (data: RawData, isBinary: boolean) => {
      if (isBinary) {
        refuse(BINARY_FRAME_ERROR);
        return;
      }
      const decoded = decodeClientFrame(rawText(data));
      if (!decoded.ok) {
        refuse(decoded.error);
        return;
      }
      const type = decoded.frame.type;
      this.metrics.framesIn.inc(type);
      const callback = byType.get(String(type));
      if (!callback) {
        refuse({ code: ErrorCode.UnknownType, message: FrameErrorMessage.unknownType(type) });
        return;
      }
      Promise.resolve(callback(decoded.frame) as unknown as ServerFrame | undefined).then(
        reply,
        (error: unknown) => {
          this.log.error(`A frame handler failed: ${String(error)}`);
          refuse({ code: ErrorCode.Unavailable, message: FrameErrorMessage.unavailable });
        },
      );
    });
  }
}

type UpgradeListener = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
