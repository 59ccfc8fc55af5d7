/**
 * `npm run bench -- --only slowReader`: the harness's slow-reader attack (`slowReaderAttack`) on
 * a replica of its own, which measures and prints its figures. Bounded: idle phase + attack + a
 * short cool-down.
 */
import { type SlowReaderSettings, slowReaderAttack } from '@taco/harness';
import { startServer } from '../servers';
import { withServer } from '../session';
import { log, type Scenario, stamp } from './common';

export const slowReader: Scenario<keyof SlowReaderSettings, unknown> = {
  file: 'slow-reader',
  ints: {
    attackSeconds: ['seconds', 60, 15, 5, 600],
    idleSeconds: ['idle-seconds', 15, 3, 3, 600],
    attackers: ['attackers', 10, 3, 1, 200],
    members: ['members', 10, 4, 2, 200],
    rate: ['rate', 250, 250, 1, 5000],
    bodyBytes: ['body', 4000, 4000, 100, 4000],
  },
  /** Runs the attack on a replica of its own and returns its report. */
  measure: (settings) => {
    const started = Date.now();
    const { attackers, members, rate } = settings;
    log(`== Slow readers: ${attackers} paused attackers, ${members} members, ${rate} msg/s`);
    return withServer(
      () => startServer('taco', 1),
      async ({ cluster }) => {
        const replica = cluster?.replicas[0];
        if (!replica?.pid) throw new Error('the replica did not start');
        const { summary } = await slowReaderAttack(replica, 'slow-reader-room', settings, log);
        const seconds = (Date.now() - started) / 1000;
        return { ...stamp('slowReader'), settings, ...summary, seconds };
      },
    );
  },
};
