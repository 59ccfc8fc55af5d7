import { lazy, Suspense } from 'react';
import { Route, Routes } from 'react-router-dom';
import { AccountPage } from '../features/account/AccountPage';
import { NotFoundPage } from './NotFoundPage';
import { AppLayout } from './AppLayout';

// Each page its own chunk: `/` does not load the room, `/r/{room}` not the create form (nor its
// word lists). The header is painted by index.html before any script runs, so the extra request
// does not delay the first paint.
const CreateRoomPage = lazy(() =>
  import('../features/create/CreateRoomPage').then((module) => ({
    default: module.CreateRoomPage,
  })),
);
const RoomPage = lazy(() =>
  import('../features/room/RoomPage').then((module) => ({ default: module.RoomPage })),
);

/** Routes: `/` (exact) Create Room, `/a` My Account, `/r/:room_id` a chat room. */
export function App() {
  return (
    <Suspense fallback={null}>
      <Routes>
        <Route element={<AppLayout />}>
          <Route index element={<CreateRoomPage />} />
          <Route path="a" element={<AccountPage />} />
          <Route path="r/:room_id" element={<RoomPage />} />
          <Route path="*" element={<NotFoundPage />} />
        </Route>
      </Routes>
    </Suspense>
  );
}
