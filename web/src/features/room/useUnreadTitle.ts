import { useEffect, useRef, useState } from 'react';
import { PRODUCT_NAME } from '../../common/brand';
import { mentionsUser } from '../messages/mentions';
import { isOwn, type Message } from '../messages/messagesSlice';

/** The tab title: `{room} · Taco Chat`, prefixed `(N)` while N are unread, `(N @)` if one mentions you. */
export function unreadTitle(room: string, unread: number, mentioned: boolean): string {
  const base = `${room} · ${PRODUCT_NAME}`;
  if (unread === 0) return base;
  return mentioned ? `(${unread} @) ${base}` : `(${unread}) ${base}`;
}

/**
 * Keeps the tab title as `{room} · Taco Chat`, prefixed with the number of messages from others
 * that arrived while the tab was hidden, and an `@` when one of them mentions the user
 * (`knownNames`: the room's names, so "@Ann Lee" is not read as a mention of Ann).
 */
export function useUnreadTitle(
  room: string,
  me: string,
  messages: Message[],
  knownNames: readonly string[],
) {
  const [unread, setUnread] = useState({ count: 0, mentioned: false });
  const seen = useRef<Set<string> | null>(null);

  useEffect(() => {
    const keys = new Set(messages.map((m) => m.key));
    const previous = seen.current;
    seen.current = keys;
    if (!previous || !document.hidden) return;
    const fresh = messages.filter(
      (m) => !previous.has(m.key) && m.source === 'remote' && !isOwn(m),
    );
    if (fresh.length === 0) return;
    const mentioned = fresh.some((m) => mentionsUser(m.message, me, knownNames));
    setUnread((now) => ({
      count: now.count + fresh.length,
      mentioned: now.mentioned || mentioned,
    }));
  }, [messages, me, knownNames]);

  useEffect(() => {
    const onVisibility = () => {
      if (!document.hidden) setUnread({ count: 0, mentioned: false });
    };
    document.addEventListener('visibilitychange', onVisibility);
    return () => document.removeEventListener('visibilitychange', onVisibility);
  }, []);

  useEffect(() => {
    document.title = unreadTitle(room, unread.count, unread.mentioned);
  }, [room, unread]);

  return unread.count;
}
