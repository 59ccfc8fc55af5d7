import { type ClientFrame, type ServerFrame } from '@taco/protocol';
import { type WebSocket } from 'ws';

/** The answer to a frame: a frame for the sender alone, or nothing. */
export type FrameReply = ServerFrame | undefined;

/**
 * What a room socket does with a client's decoded frames; `ChatGateway` implements it.
 * `RoomWsAdapter` calls it directly, once per frame, with no per-frame or per-socket objects
 * (Nest's message-handler binding would build both), since every inbound chat message takes
 * this path.
 */
export abstract class RoomFrameHandler {
  abstract handleFrame(socket: WebSocket, frame: ClientFrame): FrameReply | Promise<FrameReply>;
}
