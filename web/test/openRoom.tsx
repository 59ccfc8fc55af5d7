import { FrameType } from '@taco/protocol';
import { act, screen, within } from '@testing-library/react';
import type { RootState } from '../src/app/store';
import type { FakeSocket } from './fakeSocket';
import { type RenderedApp, renderApp } from './render';
import { keyOf } from '../src/common/keyed';

export const ROOM = 'teal-otter';
export const EPOCH = 'e1';
export const authenticated = (name = 'Alice', token = 'tok'): Partial<RootState> => ({
  roomAuth: {
    [keyOf(ROOM)]: {
      roomID: ROOM,
      senderName: name,
      token,
      authenticated: true,
      rejectionCount: 0,
    },
  },
});
export const chatMessage = (seq: number, sender: string, body: string) => ({
  sender,
  body,
  timestamp: 1_700_000_000 + seq,
  seq,
});

/** The sidebar's Share button (the header has one too, shown on phones only). */
export const sidebarShare = () =>
  within(screen.getByRole('list', { name: /Participants/ }).parentElement!).getByRole('button', {
    name: 'Share',
  });

/** Renders an authenticated room and plays the server's opening frames. */
export function openRoom(
  options: Parameters<typeof renderApp>[0] = {},
): RenderedApp & { socket: FakeSocket } {
  const rendered = renderApp({ path: `/r/${ROOM}`, preloadedState: authenticated(), ...options });
  const socket = rendered.fake.last();
  act(() => {
    socket.serverOpen();
    socket.serverSend({
      type: FrameType.Message,
      room: ROOM,
      epoch: EPOCH,
      messages: [chatMessage(1, 'Bob', 'Hi Alice'), chatMessage(2, 'Alice', 'Hi Bob')],
      complete: true,
    });
    socket.serverSend({ type: FrameType.Presence, room: ROOM, sender: 'Alice', connecting: true });
    socket.serverSend({ type: FrameType.Presence, room: ROOM, sender: 'Bob', connecting: true });
  });
  return { ...rendered, socket };
}
