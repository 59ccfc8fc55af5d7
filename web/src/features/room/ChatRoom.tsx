import { useState } from 'react';
import { useAppSelector } from '../../app/hooks';
import { Drawer } from '../../components/Drawer';
import { Button, Toast } from '../../components/ui';
import { selectActiveCount } from '../presence/presenceSlice';
import { selectRoomKey } from '../roomAuth/roomAuthSlice';
import { selectRoomSettings } from '../roomSettings/roomSettingsSlice';
import { RoomBadges, useDisappearing } from './RoomPrivacy';
import { ConnectionBanner, ConnectionPill } from './ConnectionBanner';
import { Composer } from './Composer';
import { MessageList } from './MessageList';
import { NoticeToasts } from './NoticeToasts';
import { NotifyBell } from './NotifyBell';
import { RoomMenu } from './RoomMenu';
import { SHARE_COPIED_MESSAGE, shareRoom, TOAST_DELAY_MS } from './share';
import { Sidebar } from './Sidebar';
import './room.css';

/**
 * The room once you are in it: participants (a sidebar, a drawer on phones), the header's
 * actions, the feed and the composer. Its own chunk: a first visit needs only the username modal.
 */
export function ChatRoom({ room, me }: { room: string; me: string }) {
  const participantCount = useAppSelector((state) => selectActiveCount(state, room));
  const [copiedToast, setCopiedToast] = useState(false);
  const [sidebarOpen, setSidebarOpen] = useState(false);
  const encrypted = useAppSelector((state) => selectRoomSettings(state, room).encrypted);
  const key = useAppSelector((state) => selectRoomKey(state, room));
  useDisappearing(room);

  const onShare = () => {
    // From the phone drawer: it closes, so the toast is not under the drawer's backdrop.
    setSidebarOpen(false);
    // An encrypted room's link carries its key: without it nobody can read along.
    void shareRoom(room, encrypted ? key : undefined).then((outcome) => {
      if (outcome === 'copied') setCopiedToast(true);
    });
  };

  return (
    <div className="room-layout">
      <Drawer
        show={sidebarOpen}
        onHide={() => setSidebarOpen(false)}
        title="Room details"
        className="room-sidebar"
      >
        <Sidebar room={room} me={me} onShare={onShare} />
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
            <h1
              id="chat-heading"
              className="chat-title"
              title={me !== '' ? `Welcome ${me}` : undefined}
            >
              {/* The name isolated, so a right-to-left one cannot reorder the words around it. */}
              {me !== '' ? (
                <>
                  Welcome <bdi>{me}</bdi>
                </>
              ) : (
                'Connecting...'
              )}
            </h1>
            <div className="chat-room-name d-md-none" title={room}>
              # {room}
            </div>
            <RoomBadges room={room} />
          </div>
          <Button variant="primary" size="sm" className="d-md-none" onClick={onShare}>
            Share
          </Button>
          <NotifyBell room={room} />
          <RoomMenu room={room} me={me} />
          <ConnectionPill room={room} />
        </div>
        <ConnectionBanner room={room} />
        <MessageList room={room} me={me} />
        <Composer room={room} me={me} />
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
