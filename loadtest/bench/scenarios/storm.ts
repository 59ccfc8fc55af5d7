/**
 * `npm run bench -- --only storm`: the harness's reconnect storm (`reconnectStorm`), which
 * measures and prints its figures. Exits non-zero when a message was lost or doubled, or a member
 * never came back.
 */
import { reconnectStorm, ROOM_MIN, type StormSettings } from '@taco/harness';
import { log, positive, type Scenario, stamp } from './common';

type StormInts = Exclude<keyof StormSettings, 'rate'>;
type StormFigures = Awaited<ReturnType<typeof reconnectStorm>>['figures'];

export const storm: Scenario<StormInts, StormFigures> = {
  file: 'storm',
  ints: {
    clients: ['clients', 2000, 100, ROOM_MIN, 20_000],
    warmupSeconds: ['warmup', 8, 3, 2, 300],
    processes: ['processes', 2, 1, 1, 8],
    bodyBytes: ['body', 200, 200, 50, 4000],
  },
  flags: ['rate'],
  /** Runs the storm and returns its report: the run's settings and figures. */
  measure: async (ints, values, smoke) => {
    const rate = positive('--rate', values.rate, smoke ? 4 : 0.5, 50);
    const started = Date.now();
    const { settings, figures } = await reconnectStorm({ ...ints, rate }, log);
    const seconds = (Date.now() - started) / 1000;
    return { ...stamp('storm'), settings, ...figures, seconds };
  },
  verdict: (report) => {
    if (report.everyoneBackSeconds === null) throw new Error('storm: not every client came back');
    if (report.lost > 0 || report.shownTwice > 0) {
      throw new Error('storm: messages were lost or shown twice');
    }
  },
};
