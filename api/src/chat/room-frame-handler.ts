import { type ClientFrame, type ServerFrame } from '@taco/protocol';
import { type WebSocket } from 'ws';
import { type ChatConnection } from './chat-connection';

/** The answer to a frame: a frame for the sender alone, or nothing. */
export type FrameReply = ServerFrame | undefined;

/**
 * What a room socket does with a client's decoded frames, and when it closes; `ChatGateway`
 * implements it.
 * `RoomWsAdapter` calls it directly with the socket's `ChatConnection`, once per frame, with no
 * per-frame or per-socket objects (Nest's message-handler binding would build both), since every
 * inbound chat message takes this path.
 */
export abstract class RoomFrameHandler {
  abstract handleFrame(
    connection: ChatConnection,
    frame: ClientFrame,
  ): FrameReply | Promise<FrameReply>;

  /** A room socket closed with `code`: its connection, if it was admitted, leaves its room. */
  abstract handleClose(socket: WebSocket, code: number): Promise<void>;
}
