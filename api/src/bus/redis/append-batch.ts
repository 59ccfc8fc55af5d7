/** One message for the append script: its four keys and its three arguments (see `APPEND_SCRIPT`). */
export interface AppendEntry {
  room: string;
  keys: readonly [seq: string, log: string, epoch: string, channel: string];
  args: readonly [message: string, frameHead: string, tail: string];
}

/**
 * What one append call's messages share, before their own arguments (see `APPEND_SCRIPT`): the
 * history max, the TTL, the publish command, the epoch a room whose sequence starts takes, and
 * the stored entries' head.
 */
export type AppendShared = readonly [
  historyMax: number,
  ttlSeconds: number,
  publishCommand: string,
  epochCandidate: string,
  entryHead: string,
];

/** Runs the append script over entries; answers its text, a line per entry. */
export type AppendRunner = (entries: readonly AppendEntry[]) => Promise<unknown>;

/**
 * The most messages one script call stores. Redis runs a script without serving anyone else, so
 * this keeps every call short (well under a millisecond) however many frames one turn brings.
 */
export const APPEND_BATCH_MAX = 64;

interface Waiting {
  entry: AppendEntry;
  resolve: (line: string) => void;
  reject: (error: unknown) => void;
}

/**
 * The appends of one turn of the event loop, run by Redis as one call of the append script at the
 * turn's end (its check phase), or as soon as `APPEND_BATCH_MAX` wait. Under load a replica reads many members' frames in one turn; one
 * script call for all of them costs Redis and the replica one command's overhead instead of one
 * per message, and waits no longer than the turn already did for its coalesced write. Each
 * message still gets its own answer: the script stores them in order and answers each, so one that
 * fails (a key of the wrong type) fails alone.
 */
export class AppendBatch {
  private waiting: Waiting[] = [];

  constructor(private readonly run: AppendRunner) {}

  /** Stores one message with the turn's others; resolves to its line of the script's answer. */
  add(entry: AppendEntry): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      if (this.waiting.length === 0) setImmediate(this.flush);
      this.waiting.push({ entry, resolve, reject });
      if (this.waiting.length >= APPEND_BATCH_MAX) this.flush();
    });
  }

  /** Sends the messages waiting now, before whatever the caller sends next. */
  readonly flush = (): void => {
    const batch = this.waiting;
    if (batch.length === 0) return;
    this.waiting = [];
    this.run(batch.map((waiting) => waiting.entry)).then(
      (reply) => {
        const lines = String(reply).split('\n');
        batch.forEach(({ resolve, reject }, index) => {
          const line = lines[index];
          if (line === undefined) reject(new Error('The append script answered fewer messages'));
          else resolve(line);
        });
      },
      (error: unknown) => {
        for (const waiting of batch) waiting.reject(error);
      },
    );
  };
}

/**
 * The append script's keys and arguments for `entries`, after the arguments they share, and with
 * the call's key (where its answer is kept, see `APPEND_SCRIPT`) last. Throws for no entries.
 */
export function appendCall(
  entries: readonly AppendEntry[],
  shared: AppendShared,
  callKey: string,
): { keys: string[]; args: (string | number)[] } {
  // The script would store nothing and answer nothing: a caller's mistake, not a call to send.
  if (entries.length === 0) throw new Error('An append call needs at least one message');
  const keys: string[] = [];
  const args: (string | number)[] = [...shared];
  for (const entry of entries) {
    keys.push(...entry.keys);
    args.push(...entry.args);
  }
  keys.push(callKey);
  return { keys, args };
}
