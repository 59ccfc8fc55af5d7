import { type ChatMessage } from '@taco/protocol';

/** A message about to be stored: the server has already validated it and chosen its sender. */
export interface MessageDraft {
  sender: string;
  body: string;
  /** Unix seconds. */
  timestamp: number;
  clientId?: string;
  /**
   * The sending connection. When the bus acknowledges only durable messages, that connection's
   * copy is held back from delivery and the caller sends it once `append` resolves (see
   * `StoredMessage.held`).
   */
  connectionId?: string;
}

/** A stored message and the epoch its `seq` belongs to. */
export interface StoredMessage extends ChatMessage {
  epoch: string;
  /**
   * True when the sending connection's copy was held back (durable acknowledgement): the caller
   * sends it that copy, which is its acknowledgement.
   */
  held?: boolean;
}

export interface HistoryQuery {
  count: number;
  /** Only messages whose `seq` is greater. */
  after?: number;
  /** The epoch `after` belongs to; when it is not the room's, `after` is ignored. */
  epoch?: string;
}

export interface HistoryPage {
  /** The room's epoch (made now if the room had none). */
  epoch: string;
  /** Oldest first. */
  messages: ChatMessage[];
  /**
   * False when `after` was given and a message past it is no longer stored, or when the query's
   * epoch is not the room's.
   */
  complete: boolean;
}

/** Where a stored message stands in its room: its `seq`, in the sequence of `epoch`. */
export interface MessageNumber {
  epoch: string;
  seq: number;
}

/**
 * Something for every connection in a room, serialized once by the replica that published it.
 * `except` names a sender whose own connections skip it (typing is for the others).
 */
export interface RoomEvent {
  /** A server frame's JSON text, as a string or as the UTF-8 bytes it arrived in. */
  payload: string | Buffer;
  except?: string;
  /** A connection id that skips it: the sender, whose own copy is its acknowledgement. */
  exceptConnection?: string;
  /**
   * Set when the event is a stored message, as the bus hands it over: a connection that was sent
   * that message already is not sent it again.
   */
  number?: MessageNumber;
  /** Set on a room frame of a control: see `RoomControlEvent`. */
  control?: RoomControlEvent;
}

/**
 * What a replica does besides delivering a room frame (type 9) of a control: it tells the
 * connections of the creator's holder that they hold the right (`is_creator`), and closes those
 * of a removed holder (protocol/README.md §6.9, §6.11).
 */
export interface RoomControlEvent {
  /** The holder of the creator right after the change; null when the room has none. */
  creator: string | null;
  /** The holder removed from the room by this change. */
  removed?: string;
}

export type DeliveryListener = (room: string, event: RoomEvent) => void;

/**
 * The message bus and history of all rooms: the port both drivers implement.
 * Delivery has one path: whatever is published reaches every replica subscribed to the room,
 * the publisher included, through the listener set with `onDelivery`.
 */
export abstract class ChatBus {
  /**
   * Assigns the next `seq`, stores the message, trims history and publishes it: one atomic step.
   * A room whose `seq` starts (again) gets a new epoch in the same step.
   */
  abstract append(room: string, draft: MessageDraft): Promise<StoredMessage>;
  /** Empties the room's history and publishes that it was cleared: one atomic step. */
  abstract clear(room: string, sender: string): Promise<void>;
  /** The room's history; a room with no `seq` yet starts one, and its epoch, here. */
  abstract history(room: string, query: HistoryQuery): Promise<HistoryPage>;
  /** Publishes an event that is not stored (typing, presence). */
  abstract publish(room: string, event: RoomEvent): Promise<void>;
  /** Starts delivering the room's events to this replica. */
  abstract subscribe(room: string): Promise<void>;
  /** Stops delivering the room's events to this replica. */
  abstract unsubscribe(room: string): Promise<void>;
  /** Sets the one listener that receives every delivered event. */
  abstract onDelivery(listener: DeliveryListener): void;
  /**
   * Sets the one listener told of each room this replica subscribed to again (a subscription
   * found gone, a renewed connection): what was published meanwhile was missed. Stored messages
   * are delivered from history; presence and room frames are not, so presence is checked again.
   * A bus that cannot lose a subscription never calls it.
   */
  abstract onResubscribed(listener: (room: string) => void): void;
  /** Whether the bus can store and deliver right now. */
  abstract isReady(): Promise<boolean>;
  /** Whether the room has stored state: a sequence started (someone joined or wrote) or history. */
  abstract hasRoom(room: string): Promise<boolean>;
}
