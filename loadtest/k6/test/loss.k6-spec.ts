/**
 * chat_messages_lost is exact: against a stand-in server that withholds some live copies from one
 * member, makes one message vanish and refuses another, fanout.js counts exactly those losses (no
 * more: a loss is never counted twice, a message nobody stored is expected only at its sender, and
 * a refused message is an error frame, not a loss), reports received = stored × members − withheld
 * copies, and fails its thresholds.
 */
import { count, failedThresholds, findK6, runK6, tail } from './k6-runner';
import { type LossyServer, startLossyServer } from './lossy-server';

const MEMBERS = 8;
const SENDERS = 2;
/** 2 senders × 10 messages, 2 a second for 10 s. */
const SENT = 20;

describe('chat_messages_lost against a server that loses messages', () => {
  let k6: string;
  let server: LossyServer | undefined;

  beforeAll(async () => {
    k6 = findK6();
    server = await startLossyServer({
      dropTo: 'fan5',
      dropEvery: 4,
      swallowFrom: 'fan1',
      swallowNth: 3,
      refuseFrom: 'fan0',
      refuseNth: 4,
    });
  });

  afterAll(async () => {
    await server?.close();
  });

  it('counts every lost delivery once, and fails the run', async () => {
    const result = await runK6(
      k6,
      'fanout.js',
      {
        BASE_URL: server!.url,
        PROFILE: 'smoke',
        MEMBERS: String(MEMBERS),
        SENDERS: String(SENDERS),
        RATE: '2',
        HOLD: '10',
      },
      120_000,
    );
    const context = tail(result.output);
    const { deliveries, swallowed, refused } = server!.dropped;
    // 18 messages stored (seq 1–18): fan5 missed seqs 4, 8, 12 and 16; one vanished whole; one
    // was refused.
    expect({ stored: server!.stored(), deliveries, swallowed, refused }).toEqual({
      stored: SENT - 2,
      deliveries: 4,
      swallowed: 1,
      refused: 1,
    });
    expect({ exitCode: result.code, context }).toEqual({ exitCode: 99, context });
    expect(count(result.metrics, 'chat_messages_sent')).toBe(SENT);
    expect(count(result.metrics, 'chat_messages_lost')).toBe(deliveries + swallowed);
    expect(count(result.metrics, 'chat_messages_received')).toBe(
      server!.stored() * MEMBERS - deliveries,
    );
    expect(count(result.metrics, 'chat_error_frames{code:rate_limited}')).toBe(1);
    expect(failedThresholds(result.metrics)).toEqual(
      expect.arrayContaining([
        'chat_messages_lost: count==0',
        'chat_error_frames{code:rate_limited}: count==0',
      ]),
    );
  }, 130_000);
});

describe('chat_messages_lost when the room starts again mid-run (a new epoch)', () => {
  let k6: string;
  let server: LossyServer | undefined;

  beforeAll(async () => {
    k6 = findK6();
    server = await startLossyServer({
      dropTo: 'fan5',
      dropEvery: 4,
      swallowFrom: 'fan1',
      swallowNth: 3,
      refuseFrom: 'fan0',
      refuseNth: 4,
      restartAfter: 9,
    });
  });

  afterAll(async () => {
    await server?.close();
  });

  it('compares (epoch, seq): a restarted sequence is neither duplicates nor extra losses', async () => {
    const result = await runK6(
      k6,
      'fanout.js',
      {
        BASE_URL: server!.url,
        PROFILE: 'smoke',
        MEMBERS: String(MEMBERS),
        SENDERS: String(SENDERS),
        RATE: '2',
        HOLD: '10',
      },
      120_000,
    );
    const { deliveries, swallowed } = server!.dropped;
    // 9 messages in the first epoch, 9 in the second (seq 1–9 again); fan5 missed seqs 4 and 8
    // of each.
    expect({ stored: server!.stored(), deliveries, swallowed }).toEqual({
      stored: SENT - 2,
      deliveries: 4,
      swallowed: 1,
    });
    expect(count(result.metrics, 'chat_epoch_changes')).toBe(MEMBERS);
    expect(count(result.metrics, 'chat_messages_duplicated')).toBe(0);
    expect(count(result.metrics, 'chat_messages_lost')).toBe(deliveries + swallowed);
    expect(count(result.metrics, 'chat_messages_received')).toBe(
      server!.stored() * MEMBERS - deliveries,
    );
  }, 130_000);
});
