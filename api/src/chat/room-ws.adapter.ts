import { type IncomingMessage } from 'node:http';
import { type Duplex } from 'node:stream';
import { type INestApplicationContext, Logger } from '@nestjs/common';
import { WsAdapter } from '@nestjs/platform-ws';
import {
  BINARY_FRAME_ERROR,
  type ClientFrame,
  CloseCode,
  decodeClientFrame,
  type DecodeOptions,
  encodeFrame,
  ENCRYPTED_FRAME_MAX_BYTES,
  errorFrame,
  FRAME_MAX_BYTES,
  FrameType,
  parseSocketPath,
  UNAVAILABLE_ERROR,
} from '@taco/protocol';
import { type RawData, type ServerOptions, WebSocket, WebSocketServer } from 'ws';
import { AppConfig } from '../config/app-config';
import { HealthService } from '../health/health.service';
import { MetricsService } from '../metrics/metrics.service';
import { ChatConnection } from './chat-connection';
import { ConnectionAdmission } from './connection-admission';
import { type FrameReply, RoomFrameHandler } from './room-frame-handler';
import { textFrame } from './text-frame';

/** How frames are decoded in an end-to-end encrypted room: bodies are ciphertext (§6.12). */
const ENCRYPTED: DecodeOptions = { encrypted: true };
/**
 * The heartbeat as clients send it (§5.7), and its answer framed once: most of what a quiet
 * member's socket ever sends, answered without decoding or encoding anything.
 */
const HEARTBEAT = Buffer.from(encodeFrame({ type: FrameType.Heartbeat }));
const HEARTBEAT_ANSWER = textFrame(HEARTBEAT);

const NOT_FOUND = 'HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n';
/** While draining, a new socket is refused before the upgrade, so a load balancer tries another replica. */
const DRAINING =
  'HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: 0\r\n\r\n';

/**
 * Nest's `ws` adapter, shaped for the chat contract:
 * - upgrades are routed by the pattern `/api/room/:room_id/ws` on the application's own server,
 *   and refused with 503 while the replica drains;
 * - frames over the frame limit close with 1009 (16 KiB; 24 KiB in an end-to-end encrypted room,
 *   protocol/README.md §5.2), and nothing is compressed;
 * - a socket the server closes (1013 for a client that stopped reading, 4429, 4401, 1008, 1012
 *   when draining) is dropped if its peer has not answered the close frame within
 *   `closeTimeoutMs`, so a paused peer's buffer and presence go with it (ws waits 30 s otherwise);
 * - every inbound frame goes through the protocol codec: a bad one is answered with an error
 *   frame (type 7) and never reaches the gateway; a good one goes to `RoomFrameHandler`, and its
 *   answer back to the sender. One listener function serves every socket.
 */
export class RoomWsAdapter extends WsAdapter {
  private readonly log = new Logger(RoomWsAdapter.name);
  private readonly metrics: MetricsService;
  private readonly health: HealthService;
  private readonly closeTimeoutMs: number;
  private frames: RoomFrameHandler | undefined;
  private admission: ConnectionAdmission | undefined;
  /** Shared by every socket: ws calls them with the socket as `this`. */
  private readonly onMessage: (this: WebSocket, data: RawData, isBinary: boolean) => void;
  private readonly onClose: (this: WebSocket, code: number) => void;
  private readonly onSocketError: (error: Error) => void;

  constructor(private readonly app: INestApplicationContext) {
    super(app);
    this.metrics = app.get(MetricsService);
    this.health = app.get(HealthService);
    this.closeTimeoutMs = app.get(AppConfig).closeTimeoutMs;
    const receive = (socket: WebSocket, data: RawData, isBinary: boolean) =>
      this.receive(socket, data, isBinary);
    this.onMessage = function (this: WebSocket, data: RawData, isBinary: boolean) {
      receive(this, data, isBinary);
    };
    const closed = (socket: WebSocket, code: number) => this.handler().handleClose(socket, code);
    this.onClose = function (this: WebSocket, code: number) {
      void closed(this, code);
    };
    this.onSocketError = (error) => this.log.warn(`WebSocket error: ${error.message}`);
  }

  override create(): WebSocketServer {
    // ws (≥ 8.19) reads `closeTimeout`; @types/ws does not list it yet.
    const options: ServerOptions & { closeTimeout: number } = {
      noServer: true,
      // The larger limit; a plain room's is checked per frame (`receive`).
      maxPayload: ENCRYPTED_FRAME_MAX_BYTES,
      perMessageDeflate: false,
      clientTracking: true,
      closeTimeout: this.closeTimeoutMs,
    };
    const server = new WebSocketServer(options);
    server.on('error', (error) => this.log.error(`WebSocket server error: ${error.message}`));
    server.on('connection', (socket: WebSocket) => {
      socket.on('error', this.onSocketError);
      socket.on('message', this.onMessage);
      socket.on('close', this.onClose);
    });
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
      // Admission may ask Redis (a ticket, the per-IP cap); it never rejects.
      const admission = this.admissionService();
      void admission.prepare(request).then(() => {
        server.handleUpgrade(request, socket, head, (ws) => server.emit('connection', ws, request));
      });
    });
    return server;
  }

  private admissionService(): ConnectionAdmission {
    const admission =
      this.admission ?? this.app.get<ConnectionAdmission>(ConnectionAdmission, { strict: false });
    this.admission = admission;
    return admission;
  }

  /** Frames are dispatched by `receive` (see the class comment), not by message name. */
  override bindMessageHandlers(): void {
    // Nothing to bind per socket.
  }

  /**
   * A socket's close goes to `RoomFrameHandler.handleClose` through the listener every socket
   * shares (`create`), with its close code. Nest's hook would add a closure per socket and a third
   * `close` listener (ws has one to track clients, the close code another), whose array then grows
   * to 19 slots: about 250 bytes an idle connection.
   */
  override bindClientDisconnect(): void {
    // Nothing to bind per socket.
  }

  private handler(): RoomFrameHandler {
    return (this.frames ??= this.app.get<RoomFrameHandler>(RoomFrameHandler, { strict: false }));
  }

  private receive(socket: WebSocket, data: RawData, isBinary: boolean): void {
    // A socket that was refused is closing: nothing it sends is read.
    const connection = ChatConnection.of(socket);
    if (!connection) return;
    // How a frame is judged depends on the room (§5.2, §6.12), which the join reads: a frame that
    // comes first waits for it, in order (its callbacks run in the order frames came); one whose
    // join failed is dropped, as the connection is closing.
    if (!connection.inRoom) {
      connection.joined.then(
        () => this.decoded(connection, data, isBinary),
        () => undefined,
      );
      return;
    }
    this.decoded(connection, data, isBinary);
  }

  private decoded(connection: ChatConnection, data: RawData, isBinary: boolean): void {
    if (isBinary) {
      this.reply(connection, errorFrame(BINARY_FRAME_ERROR));
      return;
    }
    if (Buffer.isBuffer(data) && data.equals(HEARTBEAT)) {
      this.metrics.framesIn.inc({ type: FrameType.Heartbeat });
      if (connection.writeFrame(HEARTBEAT_ANSWER)) this.metrics.framesOut.inc();
      return;
    }
    if (!connection.encrypted && byteLength(data) > FRAME_MAX_BYTES) {
      connection.close(CloseCode.TooBig, '');
      return;
    }
    const decoded = decodeClientFrame(rawText(data), connection.encrypted ? ENCRYPTED : undefined);
    if (!decoded.ok) {
      this.reply(connection, errorFrame(decoded.error));
      return;
    }
    const frame = decoded.frame;
    this.metrics.framesIn.inc({ type: frame.type });
    const frames = this.handler();
    let answer: FrameReply | Promise<FrameReply>;
    try {
      answer = frames.handleFrame(connection, frame);
    } catch (error) {
      this.failed(connection, frame, error);
      return;
    }
    if (answer instanceof Promise) {
      answer.then(
        (reply) => this.reply(connection, reply),
        (error: unknown) => this.failed(connection, frame, error),
      );
    } else {
      this.reply(connection, answer);
    }
  }

  /** Every answer to a frame goes out here, so every error frame is counted here too. */
  private reply(connection: ChatConnection, frame: FrameReply): void {
    if (frame && connection.send(frame) && frame.type === FrameType.Error) {
      this.metrics.errorFrames.inc({ code: frame.code });
    }
  }

  /** A handler that throws: the sender is told the server could not do it; everyone else carries on. */
  private failed(connection: ChatConnection, frame: ClientFrame, error: unknown): void {
    this.log.error(
      `A frame handler failed: ${error instanceof Error ? error.message : String(error)}`,
      error instanceof Error ? error.stack : undefined,
    );
    this.reply(
      connection,
      errorFrame(
        UNAVAILABLE_ERROR,
        frame.type === FrameType.Heartbeat ? undefined : frame.client_id,
      ),
    );
  }
}

type UpgradeListener = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

function byteLength(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((total, part) => total + part.length, 0);
  return data.byteLength;
}

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
