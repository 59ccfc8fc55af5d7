import { isRoomKey, validateRoomName, WebRoute } from '@taco/protocol';
import { Suspense, useEffect, useLayoutEffect, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { useRequestCredentialsMutation, useRoomInfoQuery } from '../../api/roomsApi';
import { useAppDispatch, useAppSelector, useAppStore } from '../../app/hooks';
import { Alert, Button, Spinner } from '../../components/ui';
import { ChatRoom, preloadChatRoom } from './chatRoomChunk';
import {
  rejoinAsked,
  roomCreated,
  roomEntered,
  roomJoined,
  roomKeyFound,
  roomLeft,
} from '../chat/chatActions';
import { roomCipherFor } from '../e2e/roomCiphers';
import { selectMentionNames } from '../messages/mentionNames';
import { selectMessages, selectRoomKnown } from '../messages/messagesSlice';
import { selectAuthError } from '../roomAuth/authErrorsSlice';
import { selectRemoved, selectRoomAuth, selectRoomKey } from '../roomAuth/roomAuthSlice';
import { selectRoomSettings, selectSettingsKnown } from '../roomSettings/roomSettingsSlice';
import { UsernameModal } from './UsernameModal';
import { useUnreadTitle } from './useUnreadTitle';
import './roomGate.css';

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

export const REMOVED_TITLE = 'You were removed from this room';
export const NEEDS_KEY_TITLE = 'This room is end-to-end encrypted';

/** Whether the key held opens an encrypted room: its key check is the room's (§6.12). */
type KeyFit = 'plain' | 'checking' | 'fits' | 'missing' | 'wrong';

function useKeyFit(room: string, encrypted: boolean, keyCheck: string | null, key?: string) {
  const [checked, setChecked] = useState<{ key: string; keyCheck: string; fits: boolean }>();
  const needed = encrypted && key !== undefined && isRoomKey(key) && keyCheck !== null;
  useEffect(() => {
    if (!needed) return;
    let live = true;
    void roomCipherFor(room, key)
      .then(
        (cipher) => cipher.keyCheck === keyCheck,
        () => false,
      )
      .then((fits) => {
        if (live) setChecked({ key, keyCheck, fits });
      });
    return () => {
      live = false;
    };
  }, [key, keyCheck, needed, room]);
  let fit: KeyFit;
  if (!encrypted) fit = 'plain';
  else if (key === undefined) fit = 'missing';
  else if (!isRoomKey(key)) fit = 'wrong';
  // No check to compare with yet (the room frame tells it, §6.9): nothing to refuse the key by.
  else if (keyCheck === null) fit = 'fits';
  else if (checked?.key !== key || checked.keyCheck !== keyCheck) fit = 'checking';
  else fit = checked.fits ? 'fits' : 'wrong';
  return fit;
}

/**
 * The room behind its gates: a key from the link's fragment is kept and leaves the address bar;
 * the room's settings are read first; an encrypted room without a key that fits, and a room the
 * user was removed from, show why instead of joining.
 */
function Room({ room }: { room: string }) {
  const dispatch = useAppDispatch();
  const info = useRoomInfoQuery(room);
  const settingsKnown = useAppSelector((state) => selectSettingsKnown(state, room));
  const { encrypted, keyCheck } = useAppSelector((state) => selectRoomSettings(state, room));
  // The link's key counts from the first render, before the layout effect below stores it.
  const [linkKey] = useState(() => {
    const fragment = window.location.hash.slice(1);
    return isRoomKey(fragment) ? fragment : undefined;
  });
  const key = useAppSelector((state) => selectRoomKey(state, room)) ?? linkKey;
  const removed = useAppSelector((state) => selectRemoved(state, room));
  const fit = useKeyFit(room, encrypted, keyCheck, key);
  /** Whether the room itself was shown at the last render (not a gate or the spinner). */
  const [inSession, setInSession] = useState(false);

  // Before the first paint: the key never stays in the address bar, history or a screenshot.
  // A link opened in this tab again with another key after the # changes only the fragment: the
  // page does not load again, so the new key is read the same way.
  useLayoutEffect(() => {
    const takeFragment = () => {
      const fragment = window.location.hash.slice(1);
      if (fragment === '') return;
      if (isRoomKey(fragment)) dispatch(roomKeyFound({ room, key: fragment }));
      const { pathname, search } = window.location;
      window.history.replaceState(window.history.state, '', pathname + search);
    };
    takeFragment();
    window.addEventListener('hashchange', takeFragment);
    return () => window.removeEventListener('hashchange', takeFragment);
  }, [dispatch, room]);

  let view: 'removed' | 'pending' | 'gate' | 'session';
  if (removed) view = 'removed';
  // protocol/README.md §2.6: with a key and no settings held, the settings first, to check it
  // before joining (a join shows this user present to everyone). Without a key, or with settings
  // held (a reconnect), no wait: the room frame carries the key check. A visitor is asked for a
  // name meanwhile (the answer comes long before one is typed). An answer that fails leaves it
  // to the room frame, which comes right after the roster.
  else if (key !== undefined && !settingsKnown && info.isLoading) view = 'pending';
  // A key check told while the room is open (by the room frame, §6.9) is made without leaving
  // it: the room stays until the answer, and closes only for a key that does not fit.
  else if (fit === 'checking') view = inSession ? 'session' : 'pending';
  else if (fit === 'missing' || fit === 'wrong') view = 'gate';
  else view = 'session';
  if ((view === 'session') !== inSession) setInSession(view === 'session');

  if (view === 'removed') return <RoomGate room={room} title={REMOVED_TITLE} removed />;
  if (view === 'pending') return <Pending />;
  if (view === 'gate') {
    return <RoomGate room={room} title={NEEDS_KEY_TITLE} wrongKey={fit === 'wrong'} />;
  }
  return <RoomSession room={room} />;
}

/** Why the room does not open: removed by its creator, or encrypted and without its key. */
function RoomGate(props: { room: string; title: string; removed?: boolean; wrongKey?: boolean }) {
  const dispatch = useAppDispatch();
  const create = (
    <Link className="btn btn-primary" to={WebRoute.create}>
      Create a room
    </Link>
  );
  if (props.removed) {
    return (
      <div className="page-center">
        <Alert variant="danger" className="page-card room-gate">
          <h1 className="alert-heading h5">{props.title}</h1>
          <p>
            The room&apos;s creator removed you from <strong>{props.room}</strong>. You cannot
            rejoin it under this name for a while; unless the room is locked, you may under another
            one.
          </p>
          <div className="room-gate-actions">
            {create}
            <Button
              variant="outline-danger"
              onClick={() => dispatch(rejoinAsked({ room: props.room }))}
            >
              Join with another name
            </Button>
          </div>
        </Alert>
      </div>
    );
  }
  return (
    <div className="page-center">
      <Alert variant="warning" className="page-card room-gate">
        <h1 className="alert-heading h5">{props.title}</h1>
        <p>
          Its messages can only be read with the room&apos;s full link: the key comes after the{' '}
          <code>#</code> and never reaches our server.{' '}
          {props.wrongKey
            ? 'The link you opened carries a key that does not open this room.'
            : 'The link you opened has no key.'}
        </p>
        <p>Ask someone in the room to send you the full link.</p>
        {create}
      </Alert>
    </div>
  );
}

function RoomSession({ room }: { room: string }) {
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
