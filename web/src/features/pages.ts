import { lazy } from 'react';

export { AccountPage } from './account/AccountPage';

// Each page its own chunk: `/` does not load the room, `/r/{room}` not the create form (nor its
// word lists); the room page loads its chat view later still (`features/room/chatRoomChunk.ts`).
// The header is painted by index.html before any script runs, so the extra requests do not delay
// the first paint. (Jest maps this module to test/pages.ts, which loads them at once, so a test's
// first render is synchronous.)

export const CreateRoomPage = lazy(() =>
  import('./create/CreateRoomPage').then((module) => ({
    default: module.CreateRoomPage,
  })),
);

export const RoomPage = lazy(() =>
  import('./room/RoomPage').then((module) => ({ default: module.RoomPage })),
);
