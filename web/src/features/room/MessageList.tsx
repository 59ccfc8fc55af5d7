import { isSameUserName } from '@taco/protocol';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import Button from 'react-bootstrap/Button';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { messageRetried } from '../chat/chatActions';
import { type Message, selectEarlierMissing, selectMessages } from '../messages/messagesSlice';
import { selectParticipants } from '../presence/presenceSlice';
import { BadgeIcon } from '../../components/BadgeIcon';
import { linkify } from './linkify';

/** How close to the bottom (in pixels) still counts as "at the bottom". */
const PINNED_SLACK_PX = 48;

const timeFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const dayTimeFormat = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});
const fullFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** The time of a message; with the day when it was not sent today. */
function MessageTime({ seconds }: { seconds: number }) {
  const date = new Date(seconds * 1000);
  const today = date.toDateString() === new Date().toDateString();
  return (
    <time dateTime={date.toISOString()} title={fullFormat.format(date)}>
      {(today ? timeFormat : dayTimeFormat).format(date)}
    </time>
  );
}

function MessageBubble({ message, own, room }: { message: Message; own: boolean; room: string }) {
  const dispatch = useAppDispatch();
  return (
    <li className={`message ${own ? 'message-own' : 'message-other'}`}>
      <div className="message-sender">{message.senderName}</div>
      <div className={`bubble ${message.status === 'failed' ? 'bubble-failed' : ''}`}>
        {linkify(message.message)}
      </div>
      <div className="message-meta">
        <MessageTime seconds={message.timestamp} />
        {message.status === 'pending' ? <span> · Sending…</span> : null}
        {message.status === 'failed' ? (
          <>
            <span className="text-danger"> · Not sent</span>
            <Button
              variant="link"
              size="sm"
              className="message-retry"
              onClick={() =>
                dispatch(messageRetried({ room, clientId: message.clientId ?? message.key }))
              }
            >
              Retry
            </Button>
          </>
        ) : null}
      </div>
    </li>
  );
}

/** The message feed: bubbles, the typing bubble, and a jump to new messages. */
export function MessageList({ room, me }: { room: string; me: string }) {
  const messages = useAppSelector((state) => selectMessages(state, room));
  const participants = useAppSelector((state) => selectParticipants(state, room));
  const earlierMissing = useAppSelector((state) => selectEarlierMissing(state, room));
  const typists = participants.filter((p) => p.typing && !isSameUserName(p.name, me));
  const scroller = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const seenCount = useRef(messages.length);
  const [unseen, setUnseen] = useState(0);

  const scrollToBottom = useCallback(() => {
    const element = scroller.current;
    if (!element) return;
    element.scrollTop = element.scrollHeight;
    pinned.current = true;
    setUnseen(0);
  }, []);

  const last = messages[messages.length - 1];
  const lastIsOwnNew = last !== undefined && last.source === 'local' && last.status === 'pending';

  useLayoutEffect(() => {
    const added = messages.length - seenCount.current;
    seenCount.current = messages.length;
    if (pinned.current || lastIsOwnNew) {
      scrollToBottom();
    } else if (added > 0) {
      setUnseen((count) => count + added);
    }
  }, [messages, typists.length, lastIsOwnNew, scrollToBottom]);

  useEffect(() => {
    const onResize = () => {
      if (pinned.current) scrollToBottom();
    };
    window.addEventListener('resize', onResize);
    return () => window.removeEventListener('resize', onResize);
  }, [scrollToBottom]);

  const onScroll = () => {
    const element = scroller.current;
    if (!element) return;
    const distance = element.scrollHeight - element.scrollTop - element.clientHeight;
    pinned.current = distance <= PINNED_SLACK_PX;
    if (pinned.current) setUnseen(0);
  };

  return (
    <div className="feed-wrap">
      <div className="feed" ref={scroller} onScroll={onScroll}>
        {earlierMissing ? (
          <p className="feed-notice">Earlier messages are no longer available.</p>
        ) : null}
        {messages.length === 0 && typists.length === 0 ? (
          <div className="feed-empty">
            <BadgeIcon name="chat" size="md" />
            <p className="mb-0">No messages yet. Say hello!</p>
          </div>
        ) : null}
        {/* The log wraps the list: an <ol> given role="log" is no list, and its items lose their semantics. */}
        <div role="log" aria-live="polite" aria-label="Messages">
          <ol className="message-list">
            {messages.map((message) => (
              <MessageBubble
                key={message.key}
                message={message}
                room={room}
                own={message.id === 0 || isSameUserName(message.senderName, me)}
              />
            ))}
          </ol>
        </div>
        {typists.length > 0 ? (
          <div className="message message-other typing-bubble">
            <div className="message-sender">
              {typists.map((p) => p.name).join(', ')} {typists.length > 1 ? 'are' : 'is'} typing
            </div>
            <div className="bubble">
              <span className="typing-dots" aria-hidden="true">
                <span />
                <span />
                <span />
              </span>
            </div>
          </div>
        ) : null}
      </div>
      {unseen > 0 ? (
        <Button className="new-messages" variant="primary" size="sm" onClick={scrollToBottom}>
          {unseen === 1 ? '1 new message' : `${unseen} new messages`} ↓
        </Button>
      ) : null}
    </div>
  );
}
