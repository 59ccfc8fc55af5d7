import {
  type ChatMessage,
  FrameType,
  type ServerFrame,
  type ServerHistoryFrame,
} from '@taco/protocol';
import { isHistory, type RawClient } from '@taco/harness';

/**
 * What one client sees live: every stored message's seq, every copy's `(epoch, seq)` as
 * `epoch/seq`, the client_ids it saw acknowledged, and the seqs of copies that came without a
 * client_id.
 */
export interface SeenMessages {
  seqs: number[];
  copies: string[];
  acked: Map<string, number>;
  withoutClientId: number[];
}

/** Watches a client's live message frames; `own` is its name (its acknowledged messages). */
export function watchMessages(client: RawClient, own: string): SeenMessages {
  const seen: SeenMessages = { seqs: [], copies: [], acked: new Map(), withoutClientId: [] };
  client.socket.on('message', (data: Buffer) => {
    const frame = JSON.parse(data.toString('utf8')) as ServerFrame;
    if (frame.type !== FrameType.Message || !('seq' in frame)) return;
    seen.seqs.push(frame.seq);
    seen.copies.push(`${frame.epoch}/${frame.seq}`);
    if (frame.sender === own && frame.client_id) seen.acked.set(frame.client_id, frame.seq);
    if (!frame.client_id) seen.withoutClientId.push(frame.seq);
  });
  return seen;
}

/** The room's whole history (up to 5,000 messages), by seq, read 500 at a time by `client`. */
export async function storedMessages(client: RawClient): Promise<Map<number, ChatMessage>> {
  const stored = new Map<number, ChatMessage>();
  for (let after = 0, page = 0; page < 10; page++) {
    client.send({ type: FrameType.History, count: 500, after });
    const history = await client.next<ServerHistoryFrame & ServerFrame>(isHistory, 5000);
    for (const message of history.messages) stored.set(message.seq, message);
    if (history.messages.length < 500) break;
    after = history.messages.at(-1)?.seq ?? after;
  }
  return stored;
}

/** Values seen more than once (a copy's `(epoch, seq)`, say). */
export function repeated<T>(values: readonly T[]): T[] {
  const seen = new Set<T>();
  return values.filter((value) => seen.size === seen.add(value).size);
}
