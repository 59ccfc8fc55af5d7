/** Abuse through nginx: random and mutated frames (fuzz), and one member flooding the room. */
import { CloseCode, decodeClientFrame, FrameType } from '@taco/protocol';
import fc from 'fast-check';
import { type Cluster } from '../cluster';
import { sleep, waitFor } from '../wait';
import { type ChaosOptions, chatter, members, verdict } from './verdict';

/** Random and mutated frames through nginx: typed errors, no crash, nothing leaked. */
export async function fuzzScenario(cluster: Cluster, options: ChaosOptions) {
  const room = `chaos-fuzz-${Date.now()}`;
  const [observer, ...fuzzers] = await members(cluster.url, room, 4);
  if (!observer) throw new Error('no observer');
  const inputs = fc.sample(
    fc.oneof(
      fc.json({ maxDepth: 3 }),
      fc.string({ maxLength: 100 }),
      fc
        .record({
          type: fc.integer({ min: -2, max: 9 }),
          body: fc.anything(),
          count: fc.anything(),
          typing: fc.anything(),
        })
        .map((frame) => JSON.stringify(frame)),
    ),
    { numRuns: options.short ? 300 : 3000, seed: 42 },
  );
  let expectedErrors = 0;
  for (const [index, input] of inputs.entries()) {
    // Valid clears would empty the room and valid messages are ordinary chat: keep to the bad ones.
    if (decodeClientFrame(input).ok) continue;
    expectedErrors++;
    fuzzers[index % fuzzers.length]?.send(input);
    if (index % 50 === 0) await sleep(5);
  }
  const errors = () => fuzzers.reduce((sum, f) => sum + f.stats.errorCodes.length, 0);
  await waitFor('error frames for every bad input', () => errors() >= expectedErrors, {
    timeoutMs: 20_000,
    intervalMs: 50,
  });
  const leaked = observer.others.length;
  const notes = [
    `${inputs.length} inputs, ${expectedErrors} invalid, ${errors()} typed errors back, ${leaked} frames leaked to others`,
  ];
  return verdict(cluster, 'fuzz', room, [observer, ...fuzzers], notes, leaked);
}

/** One member floods: it is refused and then closed with 4429; the others chat untouched. */
export async function floodScenario(cluster: Cluster, options: ChaosOptions) {
  const room = `chaos-flood-${Date.now()}`;
  const [flooder, ...calm] = await members(cluster.url, room, 3);
  if (!flooder) throw new Error('no flooder');
  const floods = options.short ? 300 : 2000;
  for (let i = 0; i < floods; i++) flooder.send({ type: FrameType.Message, body: `flood ${i}` });
  await chatter(calm, 2000, 500, () => sleep(0));
  await sleep(500);
  const limited = flooder.stats.errorCodes.filter((code) => code === 'rate_limited').length;
  const closedForAbuse = flooder.stats.closeCodes.includes(CloseCode.RateLimited);
  flooder.close();
  const calmRefused = calm.reduce((sum, member) => sum + member.stats.refused.length, 0);
  const note = `flooder: ${limited} rate_limited errors, closed with 4429: ${closedForAbuse}; calm clients refused: ${calmRefused}`;
  return verdict(cluster, 'client flood', room, calm, [note], closedForAbuse ? 0 : 1);
}
