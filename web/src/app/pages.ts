import { lazy } from 'react';

// Each page its own chunk: `/` does not load the room, `/r/{room}` not the create form (nor its
// word lists), and the room's chat view waits until there is a name to chat under (a first visit
// shows only the username modal). The header is painted by index.html before any script runs,
// so the extra requests do not delay the first paint. (Jest maps this module to test/pages.ts,
// which loads them at once, so a test's first render is synchronous.)

export const CreateRoomPage = lazy(() =>
  import('../features/create/CreateRoomPage').then((module) => ({
    default: module.CreateRoomPage,
  })),
);

export const RoomPage = lazy(() =>
  import('../features/room/RoomPage').then((module) => ({ default: module.RoomPage })),
);

const loadChatRoom = () => import('../features/room/ChatRoom');

/** Starts loading the chat view (a known name, or one being typed), so entering does not wait. */
export function preloadChatRoom(): void {
  void loadChatRoom();
}

export const ChatRoom = lazy(() => loadChatRoom().then((module) => ({ default: module.ChatRoom })));
