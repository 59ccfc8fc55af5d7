import { validateRoomName, WebRoute } from '@taco/protocol';
import { Suspense, useEffect, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { useRequestCredentialsMutation } from '../../api/roomsApi';
import { useAppDispatch, useAppSelector, useAppStore } from '../../app/hooks';
import { Alert, Spinner } from '../../components/ui';
import { ChatRoom, preloadChatRoom } from './chatRoomChunk';
import { roomCreated, roomEntered, roomJoined, roomLeft } from '../chat/chatActions';
import { selectMentionNames } from '../messages/mentionNames';
import { selectMessages, selectRoomKnown } from '../messages/messagesSlice';
import { selectAuthError } from '../roomAuth/authErrorsSlice';
import { selectRoomAuth } from '../roomAuth/roomAuthSlice';
import { UsernameModal } from './UsernameModal';
import { useUnreadTitle } from './useUnreadTitle';

export { TOAST_DELAY_MS } from './share';

/** `/r/:room_id`: a chat room, behind the username modal until authenticated. */
export function RoomPage() {
  const { room_id: room = '' } = useParams();
  const problem = validateRoomName(room);
  if (problem !== null) {
    return (
      <div className="page-center">
        <Alert variant="danger" className="page-card">
          <h1 className="alert-heading h5">{problem}</h1>
          <p>This address does not name a chat room.</p>
          <Link className="btn btn-outline-danger" to={WebRoute.create}>
            Create a room
          </Link>
        </Alert>
      </div>
    );
  }
  return <Room key={room} room={room} />;
}

function Room({ room }: { room: string }) {
  const dispatch = useAppDispatch();
  const store = useAppStore();
  const auth = useAppSelector((state) => selectRoomAuth(state, room));
  const authError = useAppSelector((state) => selectAuthError(state, room));
  const messages = useAppSelector((state) => selectMessages(state, room));
  const mentionNames = useAppSelector((state) => selectMentionNames(state, room));
  const [requestCredentials, { isLoading }] = useRequestCredentialsMutation();
  /** A request from the username modal is in flight: the modal stays up until it answers. */
  const [modalRequest, setModalRequest] = useState(false);

  const senderName = auth?.senderName ?? '';
  const authenticated = auth?.authenticated === true && auth.token !== '';
  const token = authenticated ? auth.token : null;
  /** A known name without a token: ask for credentials without bothering the user. */
  const silentRetry = !authenticated && senderName !== '' && authError === undefined;

  useUnreadTitle(room, senderName, messages, mentionNames);

  // A known name: the chat view is about to be needed.
  useEffect(() => {
    if (senderName !== '') preloadChatRoom();
  }, [senderName]);

  useEffect(() => {
    if (!selectRoomKnown(store.getState(), room)) dispatch(roomCreated({ room }));
    dispatch(roomEntered({ room }));
  }, [dispatch, room, store]);

  useEffect(() => () => void dispatch(roomLeft({ room })), [dispatch, room]);

  useEffect(() => {
    if (token !== null) dispatch(roomJoined({ room, token }));
  }, [dispatch, room, token]);

  useEffect(() => {
    if (silentRetry && !isLoading) void requestCredentials({ room, senderId: senderName });
  }, [isLoading, requestCredentials, room, senderName, silentRetry]);

  if (!authenticated) {
    return (
      <div className="room-layout">
        <Pending />
        {silentRetry && !modalRequest ? null : (
          <UsernameModal
            room={room}
            initialName={senderName}
            error={authError}
            busy={isLoading}
            onEdit={preloadChatRoom}
            onSubmit={(name) => {
              setModalRequest(true);
              void requestCredentials({ room, senderId: name }).finally(() =>
                setModalRequest(false),
              );
            }}
          />
        )}
      </div>
    );
  }

  return (
    <Suspense fallback={<Pending />}>
      <ChatRoom room={room} me={senderName} />
    </Suspense>
  );
}

/** While the room is not ready: a spinner and "Connecting...". */
function Pending() {
  return (
    <div className="room-pending">
      <Spinner variant="secondary" />
      <h1 className="chat-title">Connecting...</h1>
    </div>
  );
}
