import { TICKET_TTL_SECONDS } from '@taco/protocol';
import { type TicketClaims, type TicketStore } from '../../src/bus/ticket-store.port';
import { describeContract, type UnderTest } from './describe-contract';

export interface TicketStoreUnderTest extends UnderTest {
  store: TicketStore;
  /** Another replica's store on the same storage; embedded, the same store. */
  peer: TicketStore;
  /** Lets `ms` pass for `tickets`, as their store's clock sees it. */
  elapse(ms: number, tickets: readonly string[]): Promise<void>;
}

const TTL_MS = TICKET_TTL_SECONDS * 1000;

/** The behaviour every `TicketStore` driver must have (protocol §2.4, §4.2). */
export function describeTicketStoreContract(
  driver: string,
  create: () => Promise<TicketStoreUnderTest>,
): void {
  describeContract(`TicketStore contract: ${driver}`, create, (subject) => {
    /** This test's store, its peer, and the room, name and holder of its tickets. */
    const current = () => {
      const { store, peer, elapse, testId: id } = subject();
      const claims: TicketClaims = {
        room: `tickets-${id}`,
        name: `Ann ${id}`,
        holder: `jti-${id}`,
      };
      const issue = ({ room, name, holder }: TicketClaims) => store.issue(room, { name, holder });
      return { store, peer, elapse, claims, issue };
    };

    it('issues a new 32-character base64url ticket on every call', async () => {
      const { claims, issue } = current();
      const [first, second] = [await issue(claims), await issue(claims)];
      expect(first).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(second).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(second).not.toBe(first);
    });

    it('opens once: the room, name and holder the first time, null ever after', async () => {
      const { store, peer, claims, issue } = current();
      const ticket = await issue(claims);
      expect(await store.redeem(ticket)).toEqual(claims);
      expect(await store.redeem(ticket)).toBeNull();
      expect(await peer.redeem(ticket)).toBeNull();
    });

    it('is spent once across replicas: one of two redeemers racing for it has it', async () => {
      const { store, peer, claims, issue } = current();
      const ticket = await issue(claims);
      const answers = await Promise.all([store.redeem(ticket), peer.redeem(ticket)]);
      expect(answers.filter((answer) => answer !== null)).toEqual([claims]);
    });

    it('opens on another replica than the one that issued it', async () => {
      const { peer, claims, issue } = current();
      const ticket = await issue(claims);
      expect(await peer.redeem(ticket)).toEqual(claims);
    });

    it('keeps tickets apart: spending one leaves the others as they were', async () => {
      const { store, claims, issue } = current();
      const other: TicketClaims = { room: `${claims.room}-b`, name: 'Bob', holder: 'jti-bob' };
      const [mine, theirs] = [await issue(claims), await issue(other)];
      expect(await store.redeem(mine)).toEqual(claims);
      expect(await store.redeem(theirs)).toEqual(other);
    });

    it.each([
      ['an empty string', ''],
      ['a short string', 'nonsense'],
      ['a well-formed string never issued', 'A'.repeat(32)],
      ['constructor', 'constructor'],
      ['__proto__', '__proto__'],
    ])('answers null for %s', async (_label, ticket) => {
      const { store, claims, issue } = current();
      await issue(claims);
      expect(await store.redeem(ticket)).toBeNull();
    });

    it(`still opens just before its ${TICKET_TTL_SECONDS} s are up`, async () => {
      const { store, elapse, claims, issue } = current();
      const ticket = await issue(claims);
      await elapse(TTL_MS - 2000, [ticket]);
      expect(await store.redeem(ticket)).toEqual(claims);
    });

    it(`no longer opens once its ${TICKET_TTL_SECONDS} s are up, on any replica`, async () => {
      const { store, peer, elapse, claims, issue } = current();
      const ticket = await issue(claims);
      await elapse(TTL_MS, [ticket]);
      expect(await peer.redeem(ticket)).toBeNull();
      expect(await store.redeem(ticket)).toBeNull();
    });
  });
}
