import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Modal from 'react-bootstrap/Modal';
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
      <Modal show={asking} onHide={() => setAsking(false)} centered aria-labelledby="clear-title">
        <Modal.Header closeButton>
          <Modal.Title id="clear-title" as="h2" className="h5">
            Clear the room?
          </Modal.Title>
        </Modal.Header>
        <Modal.Body>
          This clears the history of <strong>{room}</strong> for everyone in the room, not only for
          you. It cannot be undone.
        </Modal.Body>
        <Modal.Footer>
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
        </Modal.Footer>
      </Modal>
    </>
  );
}
