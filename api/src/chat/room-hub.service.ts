import { Injectable, Logger } from '@nestjs/common';
import { CloseCode, CloseReason } from '@taco/protocol';
import { performance } from 'node:perf_hooks';
import { ChatBus, type RoomControlEvent, type RoomEvent } from '../bus/chat-bus.port';
import { MetricsService } from '../metrics/metrics.service';
import { type ChatConnection } from './chat-connection';
import { textFrame } from './text-frame';
import { WriteTurn } from './write-turn';

interface LocalRoom {
  members: Set<ChatConnection>;
  /** Settles once this replica is subscribed to the room's events. */
  subscribed: Promise<void>;
}

/**
 * The rooms this replica has local connections in. It subscribes to a room while it has a member
 * there, and hands every delivered event to the room's members: serialized and framed once, the
 * same bytes written to every socket, a socket's frames of one event-loop turn in one write. A
 * stored message goes to each member at most once (`ChatConnection.writeMessage`).
 */
@Injectable()
export class RoomHub {
  private readonly logger = new Logger(RoomHub.name);
  private readonly localRooms = new Map<string, LocalRoom>();
  private readonly all = new Set<ChatConnection>();
  private readonly turn = new WriteTurn();

  constructor(
    private readonly bus: ChatBus,
    private readonly metrics: MetricsService,
  ) {
    bus.onDelivery((room, event) => this.deliver(room, event));
  }

  /** Adds a connection to its room; resolves once the room's events reach this replica. */
  add(connection: ChatConnection): Promise<void> {
    this.all.add(connection);
    let local = this.localRooms.get(connection.room);
    if (!local) {
      local = { members: new Set(), subscribed: this.bus.subscribe(connection.room) };
      this.localRooms.set(connection.room, local);
    }
    local.members.add(connection);
    return local.subscribed;
  }

  /** Removes a connection; the last one out unsubscribes the replica from the room. */
  async remove(connection: ChatConnection): Promise<void> {
    this.all.delete(connection);
    const local = this.localRooms.get(connection.room);
    if (!local?.members.delete(connection) || local.members.size > 0) return;
    this.localRooms.delete(connection.room);
    try {
      await this.bus.unsubscribe(connection.room);
    } catch (error) {
      this.logger.warn(`Could not unsubscribe from a room: ${String(error)}`);
    }
  }

  /** Every local connection, in every room. */
  connections(): ReadonlySet<ChatConnection> {
    return this.all;
  }

  /** The local members of a room (none: `undefined`). */
  membersOf(room: string): ReadonlySet<ChatConnection> | undefined {
    return this.localRooms.get(room)?.members;
  }

  /** Every room with local members, and its members. */
  *rooms(): IterableIterator<[string, ReadonlySet<ChatConnection>]> {
    for (const [room, local] of this.localRooms) yield [room, local.members];
  }

  private deliver(room: string, event: RoomEvent): void {
    const local = this.localRooms.get(room);
    if (!local) return;
    if (event.control) {
      this.deliverControl(local, event.payload, event.control);
      return;
    }
    const started = performance.now();
    const wire = textFrame(event.payload);
    const { except, exceptConnection, number } = event;
    let sent = 0;
    for (const member of local.members) {
      if (member.name === except || member.id === exceptConnection) continue;
      const written =
        number === undefined
          ? member.writeFrame(wire, this.turn)
          : member.writeMessage(wire, number, this.turn);
      if (written) sent++;
    }
    this.metrics.framesOut.inc(sent);
    this.metrics.fanoutSeconds.observe((performance.now() - started) / 1000);
  }

  /**
   * A room frame of a control (protocol/README.md §6.9): the creator's connections get it with
   * `is_creator: true`, the others as published, and a removed holder's connections are closed
   * with 4403 instead (§6.11). Rare, so framed here per variant.
   */
  private deliverControl(
    local: LocalRoom,
    payload: string | Buffer,
    { creator, removed }: RoomControlEvent,
  ): void {
    const frame = JSON.parse(payload.toString()) as Record<string, unknown>;
    const others = textFrame(JSON.stringify({ ...frame, is_creator: false }));
    const creators = textFrame(JSON.stringify({ ...frame, is_creator: true }));
    let sent = 0;
    for (const member of local.members) {
      const holder = member.claim.holder;
      if (removed !== undefined && holder === removed) {
        member.close(CloseCode.Removed, CloseReason.Removed);
        continue;
      }
      member.roomFrameSent = true;
      if (member.writeFrame(holder === creator ? creators : others, this.turn)) sent++;
    }
    this.metrics.framesOut.inc(sent);
  }
}
