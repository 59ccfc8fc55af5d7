import {
  codePointLength,
  NAME_MIN_LENGTH,
  normalizeUserName,
  validateUserName,
} from '@taco/protocol';
import { type FormEvent, useState } from 'react';
import { Modal, ModalHeader } from '../../components/Dialog';
import { Button, Spinner } from '../../components/ui';

interface UsernameModalProps {
  room: string;
  initialName: string;
  /** Why the last attempt failed (a taken name, an expired session, a server message). */
  error: string | undefined;
  busy: boolean;
  onSubmit: (name: string) => void;
  /** The name is being typed. */
  onEdit?: () => void;
}

/** Asks for a username before entering a room; it cannot be dismissed. */
export function UsernameModal({
  room,
  initialName,
  error,
  busy,
  onSubmit,
  onEdit,
}: UsernameModalProps) {
  const [name, setName] = useState(initialName);
  const [localError, setLocalError] = useState<string | null>(null);
  const [edited, setEdited] = useState(false);
  const tooShort = codePointLength(normalizeUserName(name)) < NAME_MIN_LENGTH;
  const shown = localError ?? (edited ? undefined : error);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (tooShort || busy) return;
    const problem = validateUserName(name);
    setLocalError(problem);
    setEdited(false);
    if (problem === null) onSubmit(normalizeUserName(name));
  };

  return (
    // No `onHide`: neither the backdrop nor Escape closes it.
    <Modal labelledBy="username-title">
      <form onSubmit={submit} noValidate>
        <ModalHeader id="username-title">Please choose a username</ModalHeader>
        <div className="modal-body">
          <p className="text-body-secondary small mb-2">
            This is how others in <strong>{room}</strong> will see you.
          </p>
          <input
            data-autofocus
            className={`form-control ${shown ? 'is-invalid' : ''}`}
            placeholder="John Doe"
            aria-label="Username"
            value={name}
            autoComplete="nickname"
            aria-invalid={shown ? true : undefined}
            aria-describedby={shown ? 'username-error' : undefined}
            onChange={(event) => {
              setName(event.target.value);
              setLocalError(null);
              setEdited(true);
              onEdit?.();
            }}
          />
          {shown ? (
            <div id="username-error" className="invalid-feedback d-block" role="alert">
              {shown}
            </div>
          ) : null}
        </div>
        <div className="modal-footer">
          <Button type="submit" disabled={tooShort || busy}>
            {busy ? <Spinner size="sm" className="me-2" /> : null}
            Continue
          </Button>
        </div>
      </form>
    </Modal>
  );
}
