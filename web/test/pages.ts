// The app's pages without code splitting: `React.lazy` resolves only after a tick, and the tests
// expect the page (and its socket) right after `render`. The browser suite loads the real chunks.
export { AccountPage } from '../src/features/account/AccountPage';
export { CreateRoomPage } from '../src/features/create/CreateRoomPage';
export { RoomPage } from '../src/features/room/RoomPage';
