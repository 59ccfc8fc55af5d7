import { FrameType, type ServerFrame, type ServerMessageFrame } from '@taco/protocol';

/** Matchers for `TestClient.next`. */
export const isPresence = (sender: string, connecting: boolean) => (frame: ServerFrame) =>
  frame.type === FrameType.Presence && frame.sender === sender && frame.connecting === connecting;

export const isSingleMessage = (frame: ServerFrame): frame is ServerMessageFrame =>
  frame.type === FrameType.Message && !('messages' in frame);

export const isHistory = (frame: ServerFrame) =>
  frame.type === FrameType.Message && 'messages' in frame;

export const isError = (code: string) => (frame: ServerFrame) =>
  frame.type === FrameType.Error && frame.code === code;
