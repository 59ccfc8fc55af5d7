/**
 * chat_messages_lost is exact: against a stand-in server that withholds some live copies from one
 * member and makes one message vanish, fanout.js counts exactly those losses (no more: a loss is
 * never counted twice, and a message nobody stored is expected only at its sender), reports
 * received = stored × members − withheld copies, and fails its thresholds.
 */
import { count, failedThresholds, findK6, runK6, tail } from './k6-runner';
import { type LossyServer, startLossyServer } from './lossy-server';

const MEMBERS = 8;
const SENDERS = 2;
/** 2 senders × 10 messages, 4 a second for 5 s. */
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
        RATE: '4',
        HOLD: '5',
      },
      120_000,
    );
    const context = tail(result.output);
    const { deliveries, swallowed } = server!.dropped;
    // 19 messages stored (seq 1–19): fan5 missed seqs 4, 8, 12 and 16; one vanished whole.
    expect({ stored: server!.stored(), deliveries, swallowed }).toEqual({
      stored: SENT - 1,
      deliveries: 4,
      swallowed: 1,
    });
    expect({ exitCode: result.code, context }).toEqual({ exitCode: 99, context });
    expect(count(result.metrics, 'chat_messages_sent')).toBe(SENT);
    expect(count(result.metrics, 'chat_messages_lost')).toBe(deliveries + swallowed);
    expect(count(result.metrics, 'chat_messages_received')).toBe(
      server!.stored() * MEMBERS - deliveries,
    );
    expect(failedThresholds(result.metrics)).toContain('chat_messages_lost: count==0');
  }, 130_000);
});
