import {
  createContext,
  memo,
  type ReactNode,
  useContext,
  useId,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { messageRetried } from '../chat/chatActions';
import { selectIsConnected } from '../connection/connectionSlice';
import { inlineNodes, type MentionMatcher, parseMessage } from '../messages/markdown';
import type { Message } from '../messages/messagesSlice';
import { MessageBody } from './MessageBody';
import { Button } from '../../components/ui';

const timeFormat = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });
const fullFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'short' });

/** Lets a bubble tell the feed that the user is reading, so it stops following the bottom. */
export const FeedScrollContext = createContext<{ settle: () => void }>({ settle: () => {} });

/** A message's time in the user's locale format, the full date and time on hover. */
export function MessageTime({ seconds, className }: { seconds: number; className?: string }) {
  const date = new Date(seconds * 1000);
  return (
    <time className={className} dateTime={date.toISOString()} title={fullFormat.format(date)}>
      {timeFormat.format(date)}
    </time>
  );
}

/**
 * A long body is cut to about 12 lines (by CSS) behind "Show more". Whether it overflows is
 * measured after layout, again whenever its width changes.
 */
function Collapsible({ body, children }: { body: string; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const id = useId();
  const { settle } = useContext(FeedScrollContext);
  const [expanded, setExpanded] = useState(false);
  const [overflows, setOverflows] = useState(false);
  const toggled = useRef(false);

  useLayoutEffect(() => {
    const element = ref.current;
    if (!element || expanded) return;
    const measure = () => setOverflows(element.scrollHeight > element.clientHeight + 1);
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, [body, expanded]);

  // After the user opens or closes it, the feed follows the bottom only if it is still there:
  // an opened message is read from where it was, not from its end.
  useLayoutEffect(() => {
    if (!toggled.current) return;
    toggled.current = false;
    if (!expanded) ref.current?.scrollIntoView?.({ block: 'nearest' });
    settle();
  }, [expanded, settle]);

  const toggle = () => {
    toggled.current = true;
    setExpanded(!expanded);
  };

  return (
    <>
      <div
        ref={ref}
        id={id}
        className={`bubble-body ${expanded ? '' : 'bubble-clamped'} ${overflows && !expanded ? 'bubble-faded' : ''}`}
      >
        {children}
      </div>
      {overflows || expanded ? (
        <button
          type="button"
          className="bubble-toggle"
          aria-expanded={expanded}
          aria-controls={id}
          onClick={toggle}
        >
          {expanded ? 'Show less' : 'Show more'}
        </button>
      ) : null}
    </>
  );
}

interface MessageBubbleProps {
  message: Message;
  own: boolean;
  /** Follows a message of the same sender: no name and time of its own. */
  continued: boolean;
  room: string;
  matcher: MentionMatcher;
}

/**
 * Under a message not acknowledged yet: "Sending…" while the room is connected; otherwise it
 * waits in the outbox, and says so (it goes out once the room is connected again).
 */
function PendingLabel({ room }: { room: string }) {
  const connected = useAppSelector((state) => selectIsConnected(state, room));
  return <div className="message-meta">{connected ? 'Sending…' : 'Waiting for connection…'}</div>;
}

/** Shown instead of an encrypted body that does not open with the room's key (never the body). */
export const UNDECRYPTABLE_TEXT = 'This message could not be decrypted';

/** One message; drawn again only when it, its place in a group or the known names change. */
export const MessageBubble = memo(function MessageBubble({
  message,
  own,
  continued,
  room,
  matcher,
}: MessageBubbleProps) {
  const dispatch = useAppDispatch();
  const blocks = useMemo(() => parseMessage(message.message, matcher), [message.message, matcher]);
  const mentionsMe = useMemo(() => {
    for (const node of inlineNodes(blocks)) if (node.type === 'mention' && node.self) return true;
    return false;
  }, [blocks]);
  const classes = [
    'message',
    own ? 'message-own' : 'message-other',
    continued ? 'message-continued' : '',
    mentionsMe && !own ? 'message-mentions-me' : '',
  ];
  return (
    <li className={classes.filter(Boolean).join(' ')}>
      {continued ? (
        <span className="visually-hidden">
          {message.senderName}, <MessageTime seconds={message.timestamp} />:
        </span>
      ) : (
        <div className="message-header">
          <span className="message-sender">{message.senderName}</span>
          <MessageTime className="message-time" seconds={message.timestamp} />
        </div>
      )}
      <div className={`bubble ${message.status === 'failed' ? 'bubble-failed' : ''}`} dir="auto">
        {message.undecryptable ? (
          <em className="message-undecryptable">{UNDECRYPTABLE_TEXT}</em>
        ) : (
          <Collapsible body={message.message}>
            <MessageBody blocks={blocks} />
          </Collapsible>
        )}
      </div>
      {message.status === 'pending' ? <PendingLabel room={room} /> : null}
      {message.status === 'failed' ? (
        <div className="message-meta">
          <span className="text-danger">Not sent</span>
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
        </div>
      ) : null}
    </li>
  );
});
