import { isSameUserName } from '@taco/protocol';
import { useEffect, useRef, useState } from 'react';
import { PRODUCT_NAME } from '../../app/brand';
import type { Message } from '../messages/messagesSlice';

/**
 * Keeps the tab title as `{room} · Taco Chat`, prefixed with the number of messages from others
 * that arrived while the tab was hidden.
 */
export function useUnreadTitle(room: string, me: string, messages: Message[]) {
  const [unread, setUnread] = useState(0);
  const seen = useRef<Set<string> | null>(null);

  useEffect(() => {
    const keys = new Set(messages.map((m) => m.key));
    const previous = seen.current;
    seen.current = keys;
    if (!previous || !document.hidden) return;
    const fresh = messages.filter(
      (m) => !previous.has(m.key) && m.source === 'remote' && !isSameUserName(m.senderName, me),
    ).length;
    if (fresh > 0) setUnread((count) => count + fresh);
  }, [messages, me]);

  useEffect(() => {
    const onVisibility = () => {
      if (!document.hidden) setUnread(0);
    };
    document.addEventListener('visibilitychange', onVisibility);
    return () => document.removeEventListener('visibilitychange', onVisibility);
  }, []);

  useEffect(() => {
    const base = `${room} · ${PRODUCT_NAME}`;
    document.title = unread > 0 ? `(${unread}) ${base}` : base;
  }, [room, unread]);

  return unread;
}
