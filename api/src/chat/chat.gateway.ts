import { type IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import { type BeforeApplicationShutdown, Logger } from '@nestjs/common';
import { type OnGatewayConnection, WebSocketGateway } from '@nestjs/websockets';
import {
  type ClientFrame,
  CloseCode,
  CloseReason,
  encodeFrame,
  errorFrame,
  type ErrorFrame,
  FrameType,
  type HeartbeatFrame,
  NAME_TAKEN_ERROR,
  DRAIN_TIMEOUT_MS,
  RATE_LIMITED_ERROR,
  RENAME_REFUSED_ERROR,
  type ServerFrame,
  UNAVAILABLE_ERROR,
} from '@taco/protocol';
import { type WebSocket } from 'ws';
import { ChatBus } from '../bus/chat-bus.port';
import { nameClaim } from '../bus/name-claim';
import { PresenceStore } from '../bus/presence.port';
import {
  messageFrame,
  presenceEvent,
  renameFrames,
  roomControlEvent,
  roomFrame,
  typingEvent,
} from '../bus/room-events';
import { RoomSettingsStore } from '../bus/room-settings.port';
import { Clock } from '../common/clock';
import { AppConfig } from '../config/app-config';
import { HealthService } from '../health/health.service';
import { MetricsService } from '../metrics/metrics.service';
import { RoomTokenService } from '../rooms/room-token.service';
import { CarriedLimits } from './carried-limits';
import { ChatConnection, SETTLED } from './chat-connection';
import { ConnectionAdmission } from './connection-admission';
import { ConnectionLog } from './connection-log';
import { RoomControls } from './room-controls.service';
import { type FrameReply, RoomFrameHandler } from './room-frame-handler';
import { RoomHub } from './room-hub.service';

/** A socket's join refused: someone else holds its name, or one that passes for it. */
class NameTakenError extends Error {}
/** A socket's join refused: the creator removed its holder from the room (§6.11). */
class RemovedError extends Error {}
const HEARTBEAT: HeartbeatFrame = { type: FrameType.Heartbeat };

/** What an action resolved with, as the frame's answer (made once: every frame passes here). */
const asReply = (reply: FrameReply | void): FrameReply => reply ?? undefined;

/** A client frame other than a heartbeat (which is answered at once, see `handleFrame`). */
type RoomFrame = Exclude<ClientFrame, HeartbeatFrame>;

/** What one type of frame does between the steps every frame shares (see `handle`). */
interface FrameRoute<F extends RoomFrame> {
  /** Takes from the connection's budget for this frame; false when it is rate limited. */
  allow(connection: ChatConnection, now: number): boolean;
  /** Does what the frame asks; the answer goes to the sender alone. */
  act(connection: ChatConnection, frame: F, now: number): Promise<FrameReply | void>;
  /** What failed, for the log, when `act` throws. */
  failure: string;
}

type FrameRoutes = { [T in RoomFrame['type']]: FrameRoute<Extract<RoomFrame, { type: T }>> };

/**
 * The room socket `/api/room/:room_id/ws?token=…`: admits a socket (`ConnectionAdmission`), keeps
 * presence as it joins and leaves, turns client frames (decoded by `RoomWsAdapter`) into stored
 * messages, relayed typing, clears, history replies and renames, hands the creator's controls
 * (frame 9) to `RoomControls`, and drains on shutdown. Outbound delivery
 * does not pass through here: it goes bus → `RoomHub` → sockets.
 */
@WebSocketGateway()
export class ChatGateway
  implements RoomFrameHandler, OnGatewayConnection, BeforeApplicationShutdown
{
  private readonly logger = new Logger(ChatGateway.name);
  private readonly log: ConnectionLog;
  /** What closed connections' rate limits still owe, for the next socket of the same name. */
  private readonly carried = new CarriedLimits();
  private nextId = 0;

  /** Each frame type's own step; made once, so a frame costs no closure. */
  private readonly routes: FrameRoutes = {
    [FrameType.Message]: {
      allow: (connection, now) => connection.allowMessage(now),
      act: async (connection, frame, now) => {
        const stored = await this.bus.append(connection.room, {
          sender: connection.name,
          body: frame.body,
          timestamp: now / 1000,
          clientId: frame.client_id,
          connectionId: connection.id,
        });
        // Held back from delivery until it was durable: the sender's copy is its acknowledgement.
        if (stored.held)
          return messageFrame(connection.room, stored, stored.epoch, frame.client_id);
      },
      failure: 'Storing a message failed',
    },
    [FrameType.Typing]: {
      allow: (connection, now) => connection.allowTyping(now),
      act: (connection, frame) =>
        this.bus
          .publish(connection.room, typingEvent(connection.room, connection.name, frame.typing))
          .catch((error: unknown) => {
            // A hint that is never stored: one lost while Redis is away is not the sender's error.
            this.logger.debug(`Relaying typing failed: ${String(error)}`);
          }),
      failure: 'Relaying typing failed',
    },
    [FrameType.Clear]: {
      // A clear counts as a message.
      allow: (connection, now) => connection.allowMessage(now),
      act: (connection) => this.bus.clear(connection.room, connection.name),
      failure: 'Clearing a room failed',
    },
    [FrameType.History]: {
      allow: (connection, now) => connection.allowHistory(now),
      // Each page read and written once the one before has left the server: a page can be
      // megabytes, and the buffer limit is for slow readers.
      act: (connection, frame) =>
        connection.pages.run(async () => {
          if (!(await connection.drained())) return;
          const { room } = connection;
          const page = await this.bus.history(room, {
            count: frame.count,
            after: frame.after,
            epoch: frame.epoch,
          });
          connection.send({ type: FrameType.Message, room, ...page });
        }),
      failure: 'Reading history failed',
    },
    [FrameType.Rename]: {
      // A rename counts as a message.
      allow: (connection, now) => connection.allowMessage(now),
      act: (connection, frame) =>
        connection.renames.run(() => this.rename(connection, frame.token, frame.client_id)),
      failure: 'Renaming failed',
    },
    [FrameType.Room]: {
      // A control counts as a message; it waits for a rename under way (the creator's holder).
      allow: (connection, now) => connection.allowMessage(now),
      act: (connection, frame) =>
        connection.renames.run(() => this.controls.control(connection, frame)),
      failure: 'Changing the room failed',
    },
  };

  constructor(
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly bus: ChatBus,
    private readonly presence: PresenceStore,
    private readonly hub: RoomHub,
    private readonly admission: ConnectionAdmission,
    private readonly health: HealthService,
    private readonly metrics: MetricsService,
    private readonly tokens: RoomTokenService,
    private readonly rooms: RoomSettingsStore,
    private readonly controls: RoomControls,
  ) {
    this.log = new ConnectionLog();
  }

  handleConnection(socket: WebSocket, request: IncomingMessage): void {
    const admission = this.admission.take(request);
    if (!admission.admitted) {
      this.metrics.closes.inc({ code: admission.code });
      socket.close(admission.code, admission.reason);
      this.log.refused(admission);
      return;
    }
    const now = this.clock.now();
    const connection = new ChatConnection(
      `${this.config.replicaId}:${++this.nextId}`,
      admission.room,
      nameClaim(admission.name, admission.holder),
      admission.ip,
      socket,
      request.socket,
      this.metrics,
      this.config,
      now,
      this.carried.take(admission.room, admission.name, now),
    );
    this.metrics.connections.inc();
    this.log.opened(connection);
    connection.joined = this.join(connection);
    connection.joined.then(
      () => {
        connection.inRoom = true;
        // The join's own promise goes: an idle connection holds none.
        connection.joined = SETTLED;
      },
      (error: unknown) => {
        if (error instanceof NameTakenError) return connection.refuseName();
        if (error instanceof RemovedError) {
          return connection.close(CloseCode.Removed, CloseReason.Removed);
        }
        this.logger.error(`Joining a room failed: ${String(error)}`);
        connection.close(CloseCode.TryAgainLater, CloseReason.StorageUnavailable);
      },
    );
  }

  /**
   * Subscribes first, then reads the roster and the room's settings, so no join or change between
   * is missed: the newcomer gets everyone present (itself included) and the room frame; the others
   * hear of the newcomer if the name is new, announced by the presence store in the same step as
   * the join (one Redis round trip). Rejects with `NameTakenError` when someone else holds the
   * name, or one that passes for it, and with `RemovedError` when the holder was removed.
   */
  private async join(connection: ChatConnection): Promise<void> {
    const { room, name } = connection;
    await this.hub.add(connection);
    const [joined, record] = await Promise.all([
      this.presence.join(
        room,
        connection.claim,
        connection.id,
        presenceEvent(room, name, true, name),
      ),
      this.rooms.get(room),
    ]);
    if (joined.taken) throw joined.removed ? new RemovedError(name) : new NameTakenError(name);
    // Frames that came before the join are decoded now, by the room's kind (§6.12).
    connection.encrypted = record?.encrypted ?? false;
    const frames: ServerFrame[] = joined.roster.map((sender) => ({
      type: FrameType.Presence,
      room,
      sender,
      connecting: true,
    }));
    // A control's room frame that came meanwhile is newer than what was read.
    if (!connection.roomFrameSent) {
      frames.push(roomFrame(room, record, record?.creator === connection.claim.holder));
    }
    // The newcomer's roster and room frame leave in one write, however many are present.
    connection.sendAll(frames);
  }

  /**
   * Frame 8: the connection takes the name its new token carries. Only the holder of the old
   * name's connection can do this, and the token must be for this room; a name that someone else
   * holds, or one that passes for it, is refused. The room hears of it: the new name present with
   * `renamed_from`, then the old one gone with `renamed_to` once it has no connection left.
   *
   * The old name's other connections (the browser's other tabs) follow with the same token: they
   * hold the new name already, so they may, and a follower alone hears `renamed_from`, since the
   * room knows that name already.
   */
  private async rename(
    connection: ChatConnection,
    token: string,
    clientId: string | undefined,
  ): Promise<FrameReply> {
    const { room } = connection;
    const holder = this.tokens.verify(token, room);
    if (holder === null) return errorFrame(RENAME_REFUSED_ERROR, clientId);
    const old = connection.claim;
    if (holder.name === old.name) return undefined;
    const claim = nameClaim(holder.name, holder.holder);
    const joined = await this.presence.join(room, claim, connection.id, undefined, old.holder);
    if (joined.taken) return errorFrame(NAME_TAKEN_ERROR, clientId);
    connection.claim = claim;
    const { last } = await this.presence.leave(room, old, connection.id);
    const { present, gone } = renameFrames(room, old.name, claim.name);
    if (joined.first) await this.bus.publish(room, { payload: encodeFrame(present) });
    if (last) await this.bus.publish(room, { payload: encodeFrame(gone) });
    // The creator right follows its holder's rename (§6.7), and the room hears the new name.
    const moved = await this.rooms.renamed(room, old.holder, claim);
    if (moved) await this.bus.publish(room, roomControlEvent(room, moved));
    return joined.first ? undefined : present;
  }

  async handleClose(socket: WebSocket, code: number): Promise<void> {
    const connection = ChatConnection.of(socket);
    if (!connection) return;
    connection.closeCode = code;
    this.metrics.connections.dec();
    this.admission.leave(connection.ip);
    const now = this.clock.now();
    this.log.closed(connection, now - connection.openedAt);
    // At once, so a socket reopened straight away already finds what this one owes.
    this.carried.keep(connection.room, connection.name, connection.owed, now);
    // A join that failed was reported; leaving still cleans up what it did.
    await connection.waitUntilInRoom();
    await connection.renames.idle;
    const { room, name } = connection;
    try {
      await this.hub.remove(connection);
      // The others hear that the name is gone if that was its last connection.
      await this.presence.leave(
        room,
        connection.claim,
        connection.id,
        presenceEvent(room, name, false, name),
      );
    } catch (error) {
      this.logger.error(`Leaving a room failed: ${String(error)}`);
    }
  }

  handleFrame(connection: ChatConnection, frame: ClientFrame): FrameReply | Promise<FrameReply> {
    if (frame.type === FrameType.Heartbeat) return HEARTBEAT;
    const route: FrameRoute<RoomFrame> = this.routes[frame.type];
    if (connection.inRoom) return this.handle(connection, frame, route);
    // A frame sent before the join finished waits for it; one that failed drops it.
    return connection
      .waitUntilInRoom()
      .then((joined) => (joined ? this.handle(connection, frame, route) : undefined));
  }

  /**
   * The steps every room frame takes once its connection is in its room (the codec has validated
   * it): take from its rate limit, act, and answer the sender with what the action returned or
   * the error it met. An error answering a frame carries its `client_id`. Synchronous up to the
   * action, so a frame costs one promise of its own, not one per step.
   */
  private handle(
    connection: ChatConnection,
    frame: RoomFrame,
    route: FrameRoute<RoomFrame>,
  ): FrameReply | Promise<FrameReply> {
    if (!connection.isOpen) return undefined;
    const now = this.clock.now();
    const clientId = frame.client_id;
    if (!route.allow(connection, now)) return this.rateLimited(connection, clientId);
    let acting: Promise<FrameReply | void>;
    try {
      acting = route.act(connection, frame, now);
    } catch (error) {
      return this.actFailed(route, clientId, error);
    }
    return acting.then(asReply, (error: unknown) => this.actFailed(route, clientId, error));
  }

  /** An action that failed: logged, and the sender told the server could not do it. */
  private actFailed(
    route: FrameRoute<RoomFrame>,
    clientId: string | undefined,
    error: unknown,
  ): ErrorFrame {
    this.logger.error(`${route.failure}: ${String(error)}`);
    return errorFrame(UNAVAILABLE_ERROR, clientId);
  }

  /** Answers a rate-limited frame, and closes a connection that keeps pushing. */
  private rateLimited(connection: ChatConnection, clientId: string | undefined): ErrorFrame {
    if (!connection.strike(this.clock.now())) {
      // Close after the replies already on their way, so the client sees why.
      setImmediate(() => connection.close(CloseCode.RateLimited, CloseReason.RateLimitExceeded));
    }
    return errorFrame(RATE_LIMITED_ERROR, clientId);
  }

  /**
   * Drain: stop being ready, close every socket with 1012 so clients move to another replica
   * at once, and wait (briefly) for them to go before the server closes.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.health.startDraining();
    const open = [...this.hub.connections()];
    if (open.length === 0) return;
    this.logger.log(`Draining ${open.length} connection(s)`);
    for (const connection of open) connection.close(CloseCode.Restart, CloseReason.Restarting);
    const deadline = performance.now() + DRAIN_TIMEOUT_MS;
    while (this.hub.connections().size > 0 && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}
