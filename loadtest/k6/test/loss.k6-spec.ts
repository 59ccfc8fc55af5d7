/**
 * chat_messages_lost is exact: against a stand-in server that withholds some live copies from one
 * member, makes one message vanish and refuses another, fanout.js counts exactly those losses (no
 * more: a loss is never counted twice, a message nobody stored is expected only at its sender, and
 * a refused message is an error frame, not a loss), reports received = stored × members − withheld
 * copies, and fails its thresholds. The same holds when the room's sequence starts again mid-run
 * (a new epoch): members compare (epoch, seq), never seq alone.
 */
import { count, failedThresholds, findK6, runK6, tail } from './k6-runner';
import { type LossPlan, type LossyServer, startLossyServer } from './lossy-server';

const MEMBERS = 8;
const SENDERS = 2;
/** 2 senders × 10 messages, 2 a second for 10 s. */
const SENT = 20;

const LOSSES: LossPlan = {
  dropTo: 'fan5',
  dropEvery: 4,
  swallowFrom: 'fan1',
  swallowNth: 3,
  refuseFrom: 'fan0',
  refuseNth: 4,
};

/** fanout.js against a stand-in server that loses messages as `plan` says. */
async function fanoutAgainst(plan: LossPlan) {
  const server: LossyServer = await startLossyServer(plan);
  try {
    const result = await runK6(
      findK6(),
      'fanout.js',
      {
        BASE_URL: server.url,
        PROFILE: 'smoke',
        MEMBERS: String(MEMBERS),
        SENDERS: String(SENDERS),
        RATE: '2',
        HOLD: '10',
      },
      120_000,
    );
    return { result, dropped: server.dropped, stored: server.stored() };
  } finally {
    await server.close();
  }
}

describe('chat_messages_lost against a server that loses messages', () => {
  it('counts every lost delivery once, and fails the run', async () => {
    const { result, dropped, stored } = await fanoutAgainst(LOSSES);
    const context = tail(result.output);
    const { deliveries, swallowed, refused } = dropped;
    // 18 messages stored (seq 1–18): fan5 missed seqs 4, 8, 12 and 16; one vanished whole; one
    // was refused.
    expect({ stored, deliveries, swallowed, refused }).toEqual({
      stored: SENT - 2,
      deliveries: 4,
      swallowed: 1,
      refused: 1,
    });
    expect({ exitCode: result.code, context }).toEqual({ exitCode: 99, context });
    expect(count(result.metrics, 'chat_messages_sent')).toBe(SENT);
    expect(count(result.metrics, 'chat_messages_lost')).toBe(deliveries + swallowed);
    expect(count(result.metrics, 'chat_messages_received')).toBe(stored * MEMBERS - deliveries);
    expect(count(result.metrics, 'chat_error_frames{code:rate_limited}')).toBe(1);
    expect(failedThresholds(result.metrics)).toEqual(
      expect.arrayContaining([
        'chat_messages_lost: count==0',
        'chat_error_frames{code:rate_limited}: count==0',
      ]),
    );
  }, 130_000);

  it('compares (epoch, seq): a restarted sequence is neither duplicates nor extra losses', async () => {
    const { result, dropped, stored } = await fanoutAgainst({ ...LOSSES, restartAfter: 9 });
    const { deliveries, swallowed } = dropped;
    // 9 messages in the first epoch, 9 in the second (seq 1–9 again); fan5 missed seqs 4 and 8
    // of each.
    expect({ stored, deliveries, swallowed }).toEqual({
      stored: SENT - 2,
      deliveries: 4,
      swallowed: 1,
    });
    expect(count(result.metrics, 'chat_epoch_changes')).toBe(MEMBERS);
    expect(count(result.metrics, 'chat_messages_duplicated')).toBe(0);
    expect(count(result.metrics, 'chat_messages_lost')).toBe(deliveries + swallowed);
    expect(count(result.metrics, 'chat_messages_received')).toBe(stored * MEMBERS - deliveries);
  }, 130_000);
});
