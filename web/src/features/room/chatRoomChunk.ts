import { lazy } from 'react';

// The room's chat view is a chunk of its own: it waits until there is a name to chat under (a
// first visit shows only the username modal). (Jest maps this module to test/chatRoomChunk.ts,
// which loads it at once, so a test's first render is synchronous.)

const loadChatRoom = () => import('./ChatRoom');

/** Starts loading the chat view (a known name, or one being typed), so entering does not wait. */
export function preloadChatRoom(): void {
  void loadChatRoom();
}

export const ChatRoom = lazy(() => loadChatRoom().then((module) => ({ default: module.ChatRoom })));
