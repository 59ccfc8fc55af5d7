import { WebRoute } from '@taco/protocol';
import { Link } from 'react-router-dom';
import { useAppSelector } from '../../app/hooks';
import { selectRecentRooms } from '../roomAuth/roomAuthSlice';
import './recentRooms.css';

/** Rooms this browser holds a name for, to rejoin in one click; nothing when there are none. */
export function RecentRooms() {
  const rooms = useAppSelector(selectRecentRooms);
  if (rooms.length === 0) return null;
  return (
    <section className="recent-rooms" aria-labelledby="recent-rooms-heading">
      <h2 id="recent-rooms-heading" className="h6 text-body-secondary">
        Rooms you were in
      </h2>
      <ul className="list-group">
        {rooms.map(({ room, name }) => (
          <li className="list-group-item" key={room}>
            <Link className="recent-room-name stretched-link" to={WebRoute.room(room)}>
              {room}
            </Link>
            <span className="recent-room-as">as {name}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
