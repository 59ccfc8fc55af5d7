// The room's chat view without code splitting, like test/pages.ts for the pages.
export { ChatRoom } from '../src/features/room/ChatRoom';

export function preloadChatRoom(): void {}
