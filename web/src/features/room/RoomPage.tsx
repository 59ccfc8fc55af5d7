import { validateRoomName, WebRoute } from '@taco/protocol';
import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { useRequestCredentialsMutation } from '../../api/roomsApi';
import { useAppDispatch, useAppSelector, useAppStore } from '../../app/hooks';
import { Drawer } from '../../components/Drawer';
import { Alert, Button, Spinner, Toast } from '../../components/ui';
import { roomCreated, roomEntered, roomJoined, roomLeft } from '../chat/chatActions';
import { selectMessages, selectRoomKnown } from '../messages/messagesSlice';
import { selectActiveCount } from '../presence/presenceSlice';
import { selectAuthError } from '../roomAuth/authErrorsSlice';
import { selectRoomAuth } from '../roomAuth/roomAuthSlice';
import { ConnectionBanner, ConnectionPill } from './ConnectionBanner';
import { Composer } from './Composer';
import { MessageList } from './MessageList';
import { NoticeToasts } from './NoticeToasts';
import { NotifyBell } from './NotifyBell';
import { RoomMenu } from './RoomMenu';
import { SHARE_COPIED_MESSAGE, shareRoom } from './share';
import { Sidebar } from './Sidebar';
import { UsernameModal } from './UsernameModal';
import { useUnreadTitle } from './useUnreadTitle';
import './room.css';

/** How long the "link copied" toast stays. */
export const TOAST_DELAY_MS = 3000;

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
  const participantCount = useAppSelector((state) => selectActiveCount(state, room));
  const [requestCredentials, { isLoading }] = useRequestCredentialsMutation();
  const [copiedToast, setCopiedToast] = useState(false);
  const [sidebarOpen, setSidebarOpen] = useState(false);
  /** A request from the username modal is in flight: the modal stays up until it answers. */
  const [modalRequest, setModalRequest] = useState(false);

  const senderName = auth?.senderName ?? '';
  const authenticated = auth?.authenticated === true && auth.token !== '';
  const token = authenticated ? auth.token : null;
  /** A known name without a token: ask for credentials without bothering the user. */
  const silentRetry = !authenticated && senderName !== '' && authError === undefined;

  useUnreadTitle(room, senderName, messages);

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

  const onShare = () => {
    void shareRoom(room).then((outcome) => {
      if (outcome === 'copied') setCopiedToast(true);
    });
  };

  if (!authenticated) {
    return (
      <div className="room-layout">
        <div className="room-pending">
          <Spinner variant="secondary" />
          <h1 className="chat-title">Connecting...</h1>
        </div>
        {silentRetry && !modalRequest ? null : (
          <UsernameModal
            room={room}
            initialName={senderName}
            error={authError}
            busy={isLoading}
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
    <div className="room-layout">
      <Drawer
        show={sidebarOpen}
        onHide={() => setSidebarOpen(false)}
        title="Room details"
        className="room-sidebar"
      >
        <Sidebar room={room} me={senderName} onShare={onShare} />
      </Drawer>
      <section className="chat-panel" aria-labelledby="chat-heading">
        <div className="chat-header">
          <Button
            variant="outline-secondary"
            size="sm"
            className="d-md-none"
            onClick={() => setSidebarOpen(true)}
            aria-label={`Show participants, ${participantCount} online`}
          >
            {/* An icon, not the ☰ character: the visible text stays part of the accessible name. */}
            <svg width="16" height="16" viewBox="0 0 16 16" aria-hidden="true" focusable="false">
              <path
                d="M2 4h12M2 8h12M2 12h12"
                stroke="currentColor"
                strokeWidth="1.5"
                strokeLinecap="round"
              />
            </svg>
            <span className="ms-1">{participantCount}</span>
          </Button>
          <div className="chat-heading">
            <h1 id="chat-heading" className="chat-title">
              {senderName !== '' ? `Welcome ${senderName}` : 'Connecting...'}
            </h1>
            <div className="chat-room-name d-md-none" title={room}>
              # {room}
            </div>
          </div>
          <Button variant="primary" size="sm" className="d-md-none" onClick={onShare}>
            Share
          </Button>
          <NotifyBell room={room} />
          <RoomMenu room={room} me={senderName} />
          <ConnectionPill room={room} />
        </div>
        <ConnectionBanner room={room} />
        <MessageList room={room} me={senderName} />
        <Composer room={room} me={senderName} />
      </section>
      <div className="toast-container position-fixed bottom-0 start-50 translate-middle-x p-3 share-toast">
        {copiedToast ? (
          <Toast onClose={() => setCopiedToast(false)} delay={TOAST_DELAY_MS} className="bg-dark">
            <div className="toast-body text-white">{SHARE_COPIED_MESSAGE}</div>
          </Toast>
        ) : null}
      </div>
      <NoticeToasts />
    </div>
  );
}
