import { type IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import { type BeforeApplicationShutdown, Logger } from '@nestjs/common';
import {
  type OnGatewayConnection,
  type OnGatewayDisconnect,
  type OnGatewayInit,
  WebSocketGateway,
} from '@nestjs/websockets';
import {
  type ClientFrame,
  type ClientHistoryFrame,
  type ClientMessageFrame,
  type ClientTypingFrame,
  CloseCode,
  encodeFrame,
  ErrorCode,
  errorFrame,
  type ErrorFrame,
  FrameErrorMessage,
  FrameType,
  type HeartbeatFrame,
  MISSED_PONGS_LIMIT,
  parseSocketPath,
  type ServerHistoryFrame,
} from '@taco/protocol';
import { type WebSocket } from 'ws';
import { ChatBus } from '../bus/chat-bus.port';
import { PresenceStore } from '../bus/presence.port';
import { ClientIpResolver } from '../common/client-ip';
import { Clock } from '../common/clock';
import { AppConfig } from '../config/app-config';
import { HealthService } from '../health/health.service';
import { MetricsService } from '../metrics/metrics.service';
import { RoomTokenService } from '../rooms/room-token.service';
import { ChatConnection } from './chat-connection';
import { ConnectionLimiter } from './connection-limiter';
import { type FrameReply, RoomFrameHandler } from './room-frame-handler';
import { RoomHub } from './room-hub.service';

const DRAIN_TIMEOUT_MS = 3000;
/** Sockets pinged per turn of the event loop. */
const PINGS_PER_TURN = 256;

const unavailable = (clientId?: string): ErrorFrame =>
  errorFrame({ code: ErrorCode.Unavailable, message: FrameErrorMessage.unavailable }, clientId);
const HEARTBEAT: HeartbeatFrame = { type: FrameType.Heartbeat };

/**
 * The room socket `/api/room/:room_id/ws?token=…`: authenticates at connect, keeps presence,
 * and turns client frames (decoded by `RoomWsAdapter`) into stored messages, relayed typing,
 * clears and history replies. Outbound delivery does not pass through here: it goes
 * bus → `RoomHub` → sockets.
 */
@WebSocketGateway()
export class ChatGateway
  implements
    RoomFrameHandler,
    OnGatewayInit,
    OnGatewayConnection,
    OnGatewayDisconnect,
    BeforeApplicationShutdown
{
  private readonly logger = new Logger(ChatGateway.name);
  /** One line per connection opened, refused or closed: room, replica, code, duration; never a token. */
  private readonly connectionLog = new Logger('Connection');
  private readonly connections = new WeakMap<WebSocket, ChatConnection>();
  private nextId = 0;
  /** Shared by every socket (ws calls it with the socket as `this`). */
  private readonly onPong: (this: WebSocket) => void;
  private readonly onClose: (this: WebSocket, code: number) => void;
  private pinger: NodeJS.Timeout | undefined;
  private pinging = false;

  constructor(
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly bus: ChatBus,
    private readonly presence: PresenceStore,
    private readonly hub: RoomHub,
    private readonly tokens: RoomTokenService,
    private readonly limiter: ConnectionLimiter,
    private readonly clientIp: ClientIpResolver,
    private readonly health: HealthService,
    private readonly metrics: MetricsService,
  ) {
    const connections = this.connections;
    this.onPong = function (this: WebSocket) {
      const connection = connections.get(this);
      if (connection) connection.missedPongs = 0;
    };
    this.onClose = function (this: WebSocket, code: number) {
      const connection = connections.get(this);
      if (connection) connection.closeCode = code;
    };
  }

  afterInit(): void {
    this.pinger = setInterval(() => void this.pingAll(), this.config.pingIntervalMs);
    this.pinger.unref();
  }

  /**
   * Drops connections that missed too many pongs, and pings the rest, a slice per turn of the
   * event loop so that a round over many thousands of sockets never holds up chat frames.
   */
  private async pingAll(): Promise<void> {
    if (this.pinging) return;
    this.pinging = true;
    try {
      let done = 0;
      for (const connection of [...this.hub.connections()]) {
        if (connection.missedPongs >= MISSED_PONGS_LIMIT) {
          this.metrics.closes.inc('timeout');
          connection.terminate();
        } else {
          connection.missedPongs++;
          connection.ping();
        }
        if (++done % PINGS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      this.pinging = false;
    }
  }

  private isOriginAllowed(origin: string | undefined, host: string | undefined): boolean {
    if (origin === undefined) return true;
    if (this.config.allowedOrigins.length > 0) return this.config.allowedOrigins.includes(origin);
    try {
      return new URL(origin).host === host;
    } catch {
      return false;
    }
  }

  handleConnection(socket: WebSocket, request: IncomingMessage): void {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const room = parseSocketPath(url.pathname);
    const refuse = (code: number, reason: string) => {
      this.metrics.closes.inc(code);
      socket.close(code, reason);
      this.connectionLog.log(
        `refused room=${room ?? '-'} replica=${this.config.replicaId} code=${code} reason="${reason}"`,
      );
    };
    if (this.health.isDraining) return refuse(CloseCode.Restart, 'Server restarting');
    if (room === null) return refuse(CloseCode.Policy, 'Not a room socket');
    if (!this.isOriginAllowed(request.headers.origin, request.headers.host)) {
      return refuse(CloseCode.Policy, 'Origin not allowed');
    }
    const name = this.tokens.verify(url.searchParams.get('token'), room);
    if (name === null) return refuse(CloseCode.Unauthorized, 'Unauthorized');
    const ip = this.clientIp.resolve(
      request.socket.remoteAddress,
      request.headers['x-forwarded-for'],
    );
    if (!this.limiter.acquire(ip)) return refuse(CloseCode.TryAgainLater, 'Too many connections');

    const connection = new ChatConnection(
      `${this.config.replicaId}:${++this.nextId}`,
      room,
      name,
      ip,
      socket,
      request.socket,
      this.metrics,
      this.config,
      this.clock.now(),
    );
    this.connections.set(socket, connection);
    this.metrics.connections.inc();
    socket.on('pong', this.onPong);
    socket.on('close', this.onClose);
    this.connectionLog.log(
      `opened room=${room} replica=${this.config.replicaId} connection=${connection.id}`,
    );
    connection.joined = this.join(connection);
    connection.joined.catch((error: unknown) => {
      this.logger.error(`Joining a room failed: ${String(error)}`);
      connection.close(CloseCode.TryAgainLater, 'Storage unavailable');
    });
  }

  /**
   * Subscribes first, then reads the roster, so no join between the two is missed: the newcomer
   * gets everyone present (itself included); the others hear of the newcomer if the name is new.
   */
  private async join(connection: ChatConnection): Promise<void> {
    await this.hub.add(connection);
    const { first, roster } = await this.presence.join(
      connection.room,
      connection.name,
      connection.id,
    );
    for (const sender of roster) {
      connection.send({
        type: FrameType.Presence,
        room: connection.room,
        sender,
        connecting: true,
      });
    }
    if (first) await this.announce(connection, true);
  }

  private announce(connection: ChatConnection, connecting: boolean): Promise<void> {
    const { room, name } = connection;
    return this.bus.publish(room, {
      frame: encodeFrame({ type: FrameType.Presence, room, sender: name, connecting }),
      except: name,
    });
  }

  async handleDisconnect(socket: WebSocket): Promise<void> {
    const connection = this.connections.get(socket);
    if (!connection) return;
    this.connections.delete(socket);
    this.metrics.connections.dec();
    this.limiter.release(connection.ip);
    const seconds = (this.clock.now() - connection.openedAt) / 1000;
    this.connectionLog.log(
      `closed room=${connection.room} replica=${this.config.replicaId} connection=${connection.id} code=${connection.closeCode ?? '-'} duration=${seconds.toFixed(1)}s`,
    );
    try {
      await connection.joined;
    } catch {
      // The join failed and was reported; leaving still cleans up what it did.
    }
    try {
      await this.hub.remove(connection);
      const { last } = await this.presence.leave(connection.room, connection.name, connection.id);
      if (last) await this.announce(connection, false);
    } catch (error) {
      this.logger.error(`Leaving a room failed: ${String(error)}`);
    }
  }

  /** The connection once it has joined its room, or `undefined` if it was refused. */
  private async joined(socket: WebSocket): Promise<ChatConnection | undefined> {
    const connection = this.connections.get(socket);
    if (!connection) return undefined;
    try {
      await connection.joined;
    } catch {
      return undefined;
    }
    return connection.isOpen ? connection : undefined;
  }

  /** Answers a rate-limited frame, and closes a connection that keeps pushing. */
  private rateLimited(connection: ChatConnection, clientId?: string): ErrorFrame {
    if (!connection.strike(this.clock.now())) {
      // Close after the replies already on their way, so the client sees why.
      setImmediate(() => connection.close(CloseCode.RateLimited, 'Rate limit exceeded'));
    }
    return errorFrame(
      { code: ErrorCode.RateLimited, message: FrameErrorMessage.rateLimited },
      clientId,
    );
  }

  handleFrame(socket: WebSocket, frame: ClientFrame): FrameReply | Promise<FrameReply> {
    switch (frame.type) {
      case FrameType.Message:
        return this.onMessage(socket, frame);
      case FrameType.Typing:
        return this.onTyping(socket, frame);
      case FrameType.Clear:
        return this.onClear(socket);
      case FrameType.History:
        return this.onHistory(socket, frame);
      case FrameType.Heartbeat:
        return HEARTBEAT;
    }
  }

  private async onMessage(
    socket: WebSocket,
    frame: ClientMessageFrame,
  ): Promise<ErrorFrame | undefined> {
    const connection = await this.joined(socket);
    if (!connection) return undefined;
    const now = this.clock.now();
    if (!connection.allowMessage(now)) return this.rateLimited(connection, frame.client_id);
    try {
      await this.bus.append(connection.room, {
        sender: connection.name,
        body: frame.body,
        timestamp: now / 1000,
        clientId: frame.client_id,
      });
      return undefined;
    } catch (error) {
      this.logger.error(`Storing a message failed: ${String(error)}`);
      return unavailable(frame.client_id);
    }
  }

  private async onTyping(
    socket: WebSocket,
    frame: ClientTypingFrame,
  ): Promise<ErrorFrame | undefined> {
    const connection = await this.joined(socket);
    if (!connection) return undefined;
    if (!connection.allowTyping(this.clock.now())) return this.rateLimited(connection);
    const { room, name } = connection;
    await this.bus.publish(room, {
      frame: encodeFrame({ type: FrameType.Typing, room, sender: name, typing: frame.typing }),
      except: name,
    });
    return undefined;
  }

  private async onClear(socket: WebSocket): Promise<ErrorFrame | undefined> {
    const connection = await this.joined(socket);
    if (!connection) return undefined;
    if (!connection.allowMessage(this.clock.now())) return this.rateLimited(connection);
    try {
      await this.bus.clear(connection.room, connection.name);
      return undefined;
    } catch (error) {
      this.logger.error(`Clearing a room failed: ${String(error)}`);
      return unavailable();
    }
  }

  private async onHistory(
    socket: WebSocket,
    frame: ClientHistoryFrame,
  ): Promise<ServerHistoryFrame | ErrorFrame | undefined> {
    const connection = await this.joined(socket);
    if (!connection) return undefined;
    if (!connection.allowHistory(this.clock.now())) return this.rateLimited(connection);
    try {
      const page = await this.bus.history(connection.room, {
        count: frame.count,
        after: frame.after,
        epoch: frame.epoch,
      });
      return { type: FrameType.Message, room: connection.room, ...page };
    } catch (error) {
      this.logger.error(`Reading history failed: ${String(error)}`);
      return unavailable();
    }
  }

  /**
   * Drain: stop being ready, close every socket with 1012 so clients move to another replica
   * at once, and wait (briefly) for them to go before the server closes.
   */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.pinger);
    this.health.startDraining();
    const open = [...this.hub.connections()];
    if (open.length === 0) return;
    this.logger.log(`Draining ${open.length} connection(s)`);
    for (const connection of open) connection.close(CloseCode.Restart, 'Server restarting');
    const deadline = performance.now() + DRAIN_TIMEOUT_MS;
    while (this.hub.connections().size > 0 && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}
