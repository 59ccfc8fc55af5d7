import { useState } from 'react';
import { Modal, ModalHeader } from '../../components/Dialog';
import { Button } from '../../components/ui';
import { useAppDispatch } from '../../app/hooks';
import { roomCleared } from '../chat/chatActions';

/** Clear Room, after a confirmation that says it clears the history for everyone. */
export function ClearRoomButton({ room, disabled }: { room: string; disabled: boolean }) {
  const dispatch = useAppDispatch();
  const [asking, setAsking] = useState(false);
  return (
    <>
      <Button variant="outline-danger" disabled={disabled} onClick={() => setAsking(true)}>
        Clear Room
      </Button>
      {asking ? (
        <Modal onHide={() => setAsking(false)} labelledBy="clear-title">
          <ModalHeader id="clear-title" onHide={() => setAsking(false)}>
            Clear the room?
          </ModalHeader>
          <div className="modal-body">
            This clears the history of <strong>{room}</strong> for everyone in the room, not only
            for you. It cannot be undone.
          </div>
          <div className="modal-footer">
            <Button variant="secondary" onClick={() => setAsking(false)}>
              Cancel
            </Button>
            <Button
              variant="danger"
              onClick={() => {
                setAsking(false);
                dispatch(roomCleared({ room, source: 'local' }));
              }}
            >
              Clear for everyone
            </Button>
          </div>
        </Modal>
      ) : null}
    </>
  );
}
