import { type ChatMessage, FrameType } from '@taco/protocol';
import { envelopeHeader } from './envelope';

/**
 * The texts of the append script (`APPEND_SCRIPT`): what a message is sent as, and what the script
 * answers for it.
 */

/** A `seq` the server never assigns, marking where the script puts the real one. */
export const PLACEHOLDER_SEQ = -1;
const SEQ_FIELD = '"seq":';
/** In a stored message: the `seq`. */
const SEQ_MARK = `${SEQ_FIELD}${PLACEHOLDER_SEQ}`;

/**
 * The JSON around a mark that starts with `"seq":`: [up to the number, after the mark]. A string
 * value cannot hold the mark (its quotes would be escaped), and the field comes after them anyway.
 */
function splitAt(json: string, mark: string): [string, string] {
  const at = json.lastIndexOf(mark);
  return [json.slice(0, at + SEQ_FIELD.length), json.slice(at + mark.length)];
}

/**
 * The texts the append script joins for one message (see `APPEND_SCRIPT`): the message's JSON
 * after its opening brace and up to its `seq`, sent once for the stored entry and the live frame;
 * the frame head, which is the envelope's first line (`envelopeHeader`, naming `exceptConnection`
 * if given), its newline, and the frame's JSON up to the message's fields; and the tail both
 * texts share after the `seq` (or, in the frame, its `epoch`): the sender's `client_id`, if it
 * gave one, and the closing brace. The message is serialized once, in `messagePayload`'s field
 * order: the frame is the same JSON with its `type` and `room` in front. The stored entry keeps
 * the `client_id` so that a copy a gap fill delivers from history carries it like the live one.
 */
export function appendTexts(
  room: string,
  message: ChatMessage,
  clientId: string | undefined,
  exceptConnection: string | undefined,
): [message: string, frameHead: string, tail: string] {
  const [head, end] = splitAt(JSON.stringify(message), SEQ_MARK);
  const header = envelopeHeader({ exceptConnection });
  const frameHead = `${header}\n{"type":${FrameType.Message},"room":${JSON.stringify(room)},`;
  const tail = clientId === undefined ? end : `,"client_id":${JSON.stringify(clientId)}${end}`;
  return [head.slice(1), frameHead, tail];
}

/**
 * What a stored entry has before its message (see `APPEND_SCRIPT`): its opening brace and, if
 * given, `exceptConnection` (as `except_connection`), the connection whose copy is held back, so
 * that a gap fill skips it like the live copy does. History replies leave it out.
 */
export function entryHead(exceptConnection: string | undefined): string {
  return exceptConnection === undefined
    ? '{'
    : `{"except_connection":${JSON.stringify(exceptConnection)},`;
}

/**
 * The `seq` and epoch the append script gave a message: its line of the script's answer,
 * `<seq> <epoch>`, or `!` and why Redis did not store it.
 */
export function appended(line: unknown): [seq: number, epoch: string] {
  const text = String(line);
  if (text.startsWith('!')) throw new Error(text.slice(1));
  const space = text.indexOf(' ');
  return [Number(text.slice(0, space)), text.slice(space + 1)];
}
