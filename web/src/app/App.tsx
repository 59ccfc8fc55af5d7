import { Route, Routes } from 'react-router-dom';
import { NotFoundPage } from './NotFoundPage';
import { AppLayout } from './AppLayout';
import { AccountPage, CreateRoomPage, RoomPage } from '../features/pages';

/** Routes: `/` (exact) Create Room, `/a` My Account, `/r/:room_id` a chat room. */
export function App() {
  // Each lazy page suspends inside the layout (`AppLayout`), under the header.
  return (
    <Routes>
      <Route element={<AppLayout />}>
        <Route index element={<CreateRoomPage />} />
        <Route path="a" element={<AccountPage />} />
        <Route path="r/:room_id" element={<RoomPage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}
