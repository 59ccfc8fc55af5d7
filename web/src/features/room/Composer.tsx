import { nanoid } from '@reduxjs/toolkit';
import { codePointLength, FrameErrorMessage, MESSAGE_MAX_LENGTH } from '@taco/protocol';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import Button from 'react-bootstrap/Button';
import FormControl from 'react-bootstrap/FormControl';
import { useAppDispatch } from '../../app/hooks';
import { draftEdited, messageSent } from '../chat/chatActions';

/** The message input is focused on load and again after this delay. */
export const INPUT_FOCUS_DELAY_MS = 500;

/** The message input and send button. */
export function Composer({ room, me }: { room: string; me: string }) {
  const dispatch = useAppDispatch();
  const [draft, setDraft] = useState('');
  const input = useRef<HTMLInputElement>(null);
  const body = draft.trim();
  const tooLong = codePointLength(body) > MESSAGE_MAX_LENGTH;

  useEffect(() => {
    input.current?.focus();
    const timer = setTimeout(() => input.current?.focus(), INPUT_FOCUS_DELAY_MS);
    return () => clearTimeout(timer);
  }, [room]);

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (body === '' || tooLong) return;
    dispatch(
      messageSent({
        room,
        clientId: nanoid(),
        body,
        senderName: me,
        timestamp: Date.now() / 1000,
      }),
    );
    setDraft('');
    input.current?.focus();
  };

  return (
    <form className="composer" onSubmit={onSubmit} aria-label="Send a message">
      <div className="composer-row">
        <FormControl
          ref={input}
          className="composer-input"
          placeholder="Type a message..."
          aria-label="Message"
          value={draft}
          isInvalid={tooLong}
          autoComplete="off"
          enterKeyHint="send"
          onChange={(event) => {
            setDraft(event.target.value);
            dispatch(draftEdited({ room, empty: event.target.value === '' }));
          }}
        />
        <Button type="submit" className="composer-send" disabled={body === '' || tooLong}>
          <span className="visually-hidden">Send</span>
          <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
            <path fill="currentColor" d="M3.4 20.4 21 12 3.4 3.6 3.4 10.2 15 12 3.4 13.8z" />
          </svg>
        </Button>
      </div>
      {tooLong ? <div className="composer-error">{FrameErrorMessage.bodyTooLong}</div> : null}
    </form>
  );
}
