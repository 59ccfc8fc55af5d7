import { isSameUserName } from '@taco/protocol';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useAppSelector } from '../../app/hooks';
import { BadgeIcon } from '../../components/BadgeIcon';
import { buildFeed, type FeedItem } from '../feed/feedItems';
import { selectFeedEvents } from '../feed/feedSlice';
import { readLastSeen, writeLastSeen } from '../feed/lastSeen';
import { mentionMatcher, type MentionMatcher } from '../messages/markdown';
import { selectMentionNames } from '../messages/mentionNames';
import { selectEarlierMissing, selectMessages, selectNewestHeld } from '../messages/messagesSlice';
import { selectParticipants } from '../presence/presenceSlice';
import { FeedScrollContext, MessageBubble } from './MessageBubble';
import './feed.css';
import { Button } from '../../components/ui';

/** How close to the bottom (in pixels) still counts as "at the bottom". */
const PINNED_SLACK_PX = 48;

/** The time now, refreshed at each local midnight so that "Today" and "Yesterday" move on. */
function useToday(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const midnight = new Date(now);
    midnight.setHours(24, 0, 1, 0);
    const timer = setTimeout(() => setNow(Date.now()), midnight.getTime() - now);
    return () => clearTimeout(timer);
  }, [now]);
  return now;
}

function FeedRow({
  item,
  room,
  matcher,
}: {
  item: FeedItem;
  room: string;
  matcher: MentionMatcher;
}) {
  switch (item.kind) {
    case 'message':
      return (
        <MessageBubble
          message={item.message}
          own={item.own}
          continued={item.continued}
          room={room}
          matcher={matcher}
        />
      );
    case 'day':
      return (
        <li className="feed-divider feed-day">
          <span>{item.label}</span>
        </li>
      );
    case 'unread':
      return (
        <li className="feed-divider feed-unread">
          <span>New messages</span>
        </li>
      );
    case 'presence':
      return <li className="feed-line">{item.text}</li>;
    case 'renamed':
      return (
        <li className="feed-line">
          {item.from} is now {item.name}
        </li>
      );
    case 'cleared':
      return <li className="feed-line feed-line-cleared">History cleared by {item.name}</li>;
    case 'room':
      return <li className="feed-line feed-line-room">{item.text}</li>;
  }
}

/**
 * The message feed: messages grouped by sender, day and "New messages" dividers, join, leave
 * and clear lines, the typing bubble, and a jump to new messages. It follows the bottom while
 * the user is there.
 */
export function MessageList({ room, me }: { room: string; me: string }) {
  const messages = useAppSelector((state) => selectMessages(state, room));
  const events = useAppSelector((state) => selectFeedEvents(state, room));
  const participants = useAppSelector((state) => selectParticipants(state, room));
  const earlierMissing = useAppSelector((state) => selectEarlierMissing(state, room));
  const { seq: lastSeq, epoch } = useAppSelector((state) => selectNewestHeld(state, room));
  const typists = participants.filter((p) => p.typing && !isSameUserName(p.name, me));
  const scroller = useRef<HTMLDivElement>(null);
  const list = useRef<HTMLOListElement>(null);
  const pinned = useRef(true);
  const seenCount = useRef(messages.length);
  const [unseen, setUnseen] = useState(0);
  /** Where the "New messages" line goes: where the user had left off when they came back. */
  const [unreadAfter, setUnreadAfter] = useState(() => readLastSeen(room));

  const names = useAppSelector((state) => selectMentionNames(state, room));
  const namesKey = names.join('\n');
  // eslint-disable-next-line react-hooks/exhaustive-deps -- rebuilt only when the names change
  const matcher = useMemo(() => mentionMatcher({ names, me }), [namesKey, me]);

  const now = useToday();
  const items = useMemo(
    () => buildFeed({ messages, events, epoch, unreadAfter, now }),
    [messages, events, epoch, unreadAfter, now],
  );

  /** Remembers the newest message as seen while the user is looking at the bottom. */
  const markSeen = useCallback(() => {
    if (document.visibilityState !== 'visible' || !pinned.current) return;
    if (lastSeq !== null && epoch !== null) writeLastSeen(room, { epoch, seq: lastSeq });
  }, [room, lastSeq, epoch]);

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
    markSeen();
  }, [items, messages.length, typists.length, lastIsOwnNew, scrollToBottom, markSeen]);

  useEffect(() => {
    const onResize = () => {
      if (pinned.current) scrollToBottom();
    };
    window.addEventListener('resize', onResize);
    // Content that settles after layout (a long message's "Show more") keeps the bottom in view.
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(onResize);
    if (list.current) observer?.observe(list.current);
    return () => {
      window.removeEventListener('resize', onResize);
      observer?.disconnect();
    };
  }, [scrollToBottom]);

  useEffect(() => {
    const onVisibility = () => {
      // Leaving the tab: the line will mark what arrives while away.
      if (document.visibilityState === 'hidden') setUnreadAfter(readLastSeen(room));
      else markSeen();
    };
    document.addEventListener('visibilitychange', onVisibility);
    return () => document.removeEventListener('visibilitychange', onVisibility);
  }, [room, markSeen]);

  /** Whether the user is at the bottom, from where the feed is scrolled now. */
  const onScroll = useCallback(() => {
    const element = scroller.current;
    if (!element) return;
    const distance = element.scrollHeight - element.scrollTop - element.clientHeight;
    pinned.current = distance <= PINNED_SLACK_PX;
    if (pinned.current) {
      setUnseen(0);
      markSeen();
    }
  }, [markSeen]);

  const scrollContext = useMemo(() => ({ settle: onScroll }), [onScroll]);

  return (
    <div className="feed-wrap">
      <div className="feed" ref={scroller} onScroll={onScroll}>
        {earlierMissing ? (
          <p className="feed-notice">Earlier messages are no longer available.</p>
        ) : null}
        <div role="log" aria-live="polite" aria-label="Messages">
          <FeedScrollContext.Provider value={scrollContext}>
            <ol className="message-list" ref={list}>
              {items.map((item) => (
                <FeedRow key={item.key} item={item} room={room} matcher={matcher} />
              ))}
            </ol>
          </FeedScrollContext.Provider>
        </div>
        {/* After the feed's own lines (who joined, who cleared it), not above them. */}
        {messages.length === 0 && typists.length === 0 ? (
          <div className="feed-empty">
            <BadgeIcon name="chat" size="md" />
            {/* Under "Earlier messages are no longer available", "No messages yet" would deny them. */}
            <p className="mb-0">
              {earlierMissing ? 'No new messages yet. Say hello!' : 'No messages yet. Say hello!'}
            </p>
          </div>
        ) : null}
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
