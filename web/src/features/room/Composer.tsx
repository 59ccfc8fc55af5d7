import { nanoid } from '@reduxjs/toolkit';
import {
  codePointLength,
  FrameErrorMessage,
  isBlankText,
  MESSAGE_MAX_LENGTH,
} from '@taco/protocol';
import {
  type FormEvent,
  type KeyboardEvent,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
} from 'react';
import { useAppDispatch, useAppSelector, useAppStore } from '../../app/hooks';
import { draftEdited, messageSent } from '../chat/chatActions';
import { selectDraft } from '../drafts/draftsSlice';
import { selectParticipants } from '../presence/presenceSlice';
import { completeMention, mentionAt, mentionCandidates } from './mentionCompletion';
import { Button } from '../../components/ui';

/** The message input is focused on load and again after this delay. */
export const INPUT_FOCUS_DELAY_MS = 500;

/** Now, in Unix seconds (a message's time until the server's arrives). */
function unixSeconds(): number {
  return Date.now() / 1000;
}

/** Whether the main pointer is a finger: there, Enter inserts a new line and the button sends. */
function isTouchDevice(): boolean {
  return typeof window.matchMedia === 'function' && window.matchMedia('(pointer: coarse)').matches;
}

/**
 * The message input and send button. The input grows with its text up to a few lines (then
 * scrolls); Enter sends and Shift+Enter starts a new line (on touch devices Enter is a new line
 * and the button sends). Typing `@` offers the present participants to mention.
 */
export function Composer({ room, me }: { room: string; me: string }) {
  const dispatch = useAppDispatch();
  // What was typed before the composer was last unmounted comes back: read once, on mount, not
  // subscribed to (every keystroke updates it).
  const store = useAppStore();
  const [draft, setDraft] = useState(() => selectDraft(store.getState(), room));
  const [caret, setCaret] = useState(draft.length);
  const [active, setActive] = useState(0);
  /** The `@` whose list the user closed with Escape: it stays closed until another `@`. */
  const [dismissedAt, setDismissedAt] = useState<number | null>(null);
  const input = useRef<HTMLTextAreaElement>(null);
  /** Where the caret goes once the next draft is in the input (after a completed mention). */
  const pendingCaret = useRef<number | null>(null);
  const [touch] = useState(isTouchDevice);
  const participants = useAppSelector((state) => selectParticipants(state, room));
  const body = draft.trim();
  // Only invisible characters is as empty as nothing: the server would refuse it.
  const blank = isBlankText(body);
  const tooLong = codePointLength(body) > MESSAGE_MAX_LENGTH;

  const mention = mentionAt(draft, caret);
  const present = participants.filter((p) => p.active).map((p) => p.name);
  const candidates =
    mention && mention.start !== dismissedAt ? mentionCandidates(present, mention.query, me) : [];
  const listOpen = candidates.length > 0;
  const activeIndex = Math.min(active, candidates.length - 1);

  useEffect(() => {
    input.current?.focus();
    const timer = setTimeout(() => {
      // Not out of a dialog opened meanwhile: a browser makes the page behind a modal inert.
      if (document.activeElement?.closest('dialog[open]')) return;
      input.current?.focus();
    }, INPUT_FOCUS_DELAY_MS);
    return () => clearTimeout(timer);
  }, [room]);

  // Grows with the text; CSS caps it at a few lines, then it scrolls. A completed mention puts
  // the caret after the inserted name as soon as React has put the text in, before the next
  // keystroke can land anywhere else.
  useLayoutEffect(() => {
    const element = input.current;
    if (!element) return;
    element.style.height = 'auto';
    element.style.height = `${element.scrollHeight}px`;
    const caretAt = pendingCaret.current;
    pendingCaret.current = null;
    if (caretAt !== null) element.setSelectionRange(caretAt, caretAt);
  }, [draft]);

  const edit = (text: string, at: number) => {
    setDraft(text);
    setCaret(at);
    setActive(0);
    dispatch(draftEdited({ room, text }));
  };

  const send = () => {
    if (blank || tooLong) return;
    dispatch(
      messageSent({
        room,
        clientId: nanoid(),
        body,
        senderName: me,
        timestamp: unixSeconds(),
      }),
    );
    setDraft('');
    setCaret(0);
    setDismissedAt(null);
    input.current?.focus();
  };

  const pick = (name: string) => {
    if (!mention) return;
    const next = completeMention(draft, caret, mention, name);
    pendingCaret.current = next.caret;
    edit(next.text, next.caret);
    input.current?.focus();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.nativeEvent.isComposing) return;
    if (listOpen) {
      const count = candidates.length;
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        setActive((activeIndex + (event.key === 'ArrowDown' ? 1 : count - 1)) % count);
        return;
      }
      if ((event.key === 'Enter' && !event.shiftKey) || event.key === 'Tab') {
        const name = candidates[activeIndex];
        if (name !== undefined) {
          event.preventDefault();
          pick(name);
          return;
        }
      }
      if (event.key === 'Escape') {
        event.preventDefault();
        setDismissedAt(mention?.start ?? null);
        return;
      }
    }
    if (event.key === 'Enter' && !event.shiftKey && !touch) {
      event.preventDefault();
      send();
    }
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    send();
  };

  return (
    <form className="composer" onSubmit={onSubmit} aria-label="Send a message">
      <div className="composer-row">
        <div className="composer-field">
          {listOpen ? (
            <ul className="mention-list" id="mention-list" role="listbox" aria-label="Mention">
              {candidates.map((name, index) => (
                <li
                  key={name}
                  id={`mention-option-${index}`}
                  role="option"
                  aria-selected={index === activeIndex}
                  className={`mention-option ${index === activeIndex ? 'active' : ''}`}
                  // Keeps the focus in the input.
                  onMouseDown={(event) => event.preventDefault()}
                  onClick={() => pick(name)}
                >
                  @{name}
                </li>
              ))}
            </ul>
          ) : null}
          <textarea
            ref={input}
            rows={1}
            dir="auto"
            className={`form-control composer-input ${tooLong ? 'is-invalid' : ''}`}
            placeholder="Type a message..."
            aria-label="Message"
            // Where focus goes when a dialog closes on a control that cannot take it back.
            data-focus-fallback=""
            aria-autocomplete="list"
            aria-controls={listOpen ? 'mention-list' : undefined}
            aria-activedescendant={listOpen ? `mention-option-${activeIndex}` : undefined}
            value={draft}
            autoComplete="off"
            enterKeyHint={touch ? 'enter' : 'send'}
            onKeyDown={onKeyDown}
            onSelect={(event) => setCaret(event.currentTarget.selectionStart ?? draft.length)}
            onChange={(event) => {
              if (mention === null) setDismissedAt(null);
              edit(event.target.value, event.target.selectionStart ?? event.target.value.length);
            }}
          />
        </div>
        <Button type="submit" className="composer-send" disabled={blank || tooLong}>
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
