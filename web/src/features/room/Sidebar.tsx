import { isSameUserName } from '@taco/protocol';
import { useState } from 'react';
import { useAppSelector } from '../../app/hooks';
import type { RoomControl } from '../chat/chatActions';
import { selectRoomSettings } from '../roomSettings/roomSettingsSlice';
import { MenuButton } from '../../components/MenuButton';
import { MenuItem } from './MenuItem';
import { ParticipantControlDialog } from './RoomPrivacy';
import { selectMessages } from '../messages/messagesSlice';
import { selectIsConnected } from '../connection/connectionSlice';
import { selectActiveCount, selectParticipants } from '../presence/presenceSlice';
import { ClearRoomButton } from './ClearRoomButton';
import { PresenceDot } from './PresenceDot';
import { Button } from '../../components/ui';

interface SidebarProps {
  room: string;
  me: string;
  onShare: () => void;
}

/**
 * Who is here now first: active participants, then inactive ones (those who left keep their
 * inactive dot), each group alphabetical (case-insensitive), so the list does not jump around.
 */
export function byPresence<T extends { name: string; active: boolean }>(list: readonly T[]): T[] {
  return [...list].sort(
    (a, b) =>
      Number(b.active) - Number(a.active) ||
      a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }),
  );
}

/** Participants with their presence or typing state, and the room's Share and Clear buttons. */
export function Sidebar({ room, me, onShare }: SidebarProps) {
  const participants = useAppSelector((state) => selectParticipants(state, room));
  const hasMessages = useAppSelector((state) => selectMessages(state, room).length > 0);
  // Offline, nobody's presence is known, and a clear could not reach the others.
  const connected = useAppSelector((state) => selectIsConnected(state, room));
  const sorted = byPresence(participants);
  const activeCount = useAppSelector((state) => selectActiveCount(state, room));
  const { creator, isCreator } = useAppSelector((state) => selectRoomSettings(state, room));
  const [asking, setAsking] = useState<Extract<RoomControl, { name: string }> | null>(null);

  return (
    <div className="sidebar-inner">
      <div className="sidebar-room">
        <div className="sidebar-label">Room</div>
        <div className="sidebar-room-name" title={room}>
          # {room}
        </div>
      </div>
      <h2 className="sidebar-label" id="participants-heading">
        Participants · {connected ? `${activeCount} online` : 'offline'}
      </h2>
      <ul className="participant-list" aria-labelledby="participants-heading">
        {sorted.map((participant) => (
          <li key={participant.name} className="participant">
            <span className="avatar" aria-hidden="true">
              {participant.name.trim().charAt(0).toUpperCase()}
            </span>
            <span
              className={`participant-name ${participant.active ? '' : 'text-body-secondary'}`}
              title={participant.name}
            >
              {participant.name}
            </span>
            {/* Beside the name, not in it: a long name is cut, never the marker. */}
            {isSameUserName(participant.name, me) ? (
              <span className="participant-you"> (you)</span>
            ) : null}
            {creator !== null && isSameUserName(participant.name, creator) ? (
              <span className="participant-creator">creator</span>
            ) : null}
            {isCreator &&
            connected &&
            participant.active &&
            !isSameUserName(participant.name, me) ? (
              <ParticipantMenu name={participant.name} onChoose={setAsking} />
            ) : null}
            <PresenceDot
              active={connected && participant.active}
              typing={connected && participant.typing}
            />
          </li>
        ))}
        {sorted.length === 0 ? (
          <li className="participant text-body-secondary">Nobody here yet</li>
        ) : null}
      </ul>
      <div className="sidebar-actions">
        <Button variant="primary" onClick={onShare}>
          Share
        </Button>
        <ClearRoomButton room={room} disabled={!hasMessages || !connected} />
      </div>
      {asking ? (
        <ParticipantControlDialog room={room} control={asking} onDone={() => setAsking(null)} />
      ) : null}
    </div>
  );
}

/** The creator's actions on someone present: hand the room over, or remove them. */
function ParticipantMenu({
  name,
  onChoose,
}: {
  name: string;
  onChoose: (control: Extract<RoomControl, { name: string }>) => void;
}) {
  const [open, setOpen] = useState(false);
  const choose = (action: 'remove' | 'hand_over') => {
    setOpen(false);
    onChoose({ action, name });
  };
  return (
    <MenuButton
      label={`Actions for ${name}`}
      open={open}
      onOpenChange={setOpen}
      face={<span aria-hidden="true">⋯</span>}
    >
      <MenuItem onSelect={() => choose('hand_over')}>Make creator…</MenuItem>
      <MenuItem onSelect={() => choose('remove')}>Remove from room…</MenuItem>
    </MenuButton>
  );
}
