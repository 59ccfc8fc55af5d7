import { inlineNodes, mentionMatcher, parseMessage } from './markdown';

/**
 * Whether a message body mentions `myName` (`@name`, case-insensitive, not inside code), the
 * way the feed highlights it. `knownNames` are the room's other participants: "@Ann Lee" is a
 * mention of Ann Lee, not of Ann, when both are known.
 */
export function mentionsUser(
  body: string,
  myName: string,
  knownNames: readonly string[] = [],
): boolean {
  if (!body.includes('@') || myName.trim() === '') return false;
  const blocks = parseMessage(body, mentionMatcher({ names: knownNames, me: myName }));
  for (const node of inlineNodes(blocks)) {
    if (node.type === 'mention' && node.self) return true;
  }
  return false;
}
