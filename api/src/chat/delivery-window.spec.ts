import fc from 'fast-check';
import { DELIVERY_WINDOW, DeliveryWindow } from './delivery-window';

describe('DeliveryWindow', () => {
  it('lets each message through once, in order or not', () => {
    const window = new DeliveryWindow();
    expect([5, 6, 6, 7, 5].map((seq) => window.admit('e1', seq))).toEqual([
      true,
      true,
      false,
      true,
      false,
    ]);
  });

  it("lets a sender's acknowledgement through after later messages, and only once", () => {
    const window = new DeliveryWindow();
    // Her own 11 is held back until it is durable; the others' 12 and 13 come first.
    expect([10, 12, 13].map((seq) => window.admit('e1', seq))).toEqual([true, true, true]);
    expect(window.admit('e1', 11)).toBe(true);
    // A gap fill that read 11 from history as well.
    expect(window.admit('e1', 11)).toBe(false);
  });

  it('knows nothing before its first message: an earlier one, its own acknowledgement say, goes out once', () => {
    const window = new DeliveryWindow();
    expect(window.admit('e1', 42)).toBe(true);
    expect(window.admit('e1', 41)).toBe(true);
    expect(window.admit('e1', 41)).toBe(false);
  });

  it('starts again with a new epoch', () => {
    const window = new DeliveryWindow();
    expect(window.admit('e1', 7)).toBe(true);
    expect(window.admit('e2', 7)).toBe(true);
    expect(window.admit('e2', 7)).toBe(false);
    expect(window.admit('e2', 1)).toBe(true);
  });

  it('lets through what is older than the window, and forgets the bits of seqs it moved past', () => {
    const window = new DeliveryWindow();
    expect(window.admit('e1', 1)).toBe(true);
    expect(window.admit('e1', 1 + DELIVERY_WINDOW)).toBe(true);
    // Same bit as 1, which is now outside the window: cannot tell, so it goes out.
    expect(window.admit('e1', 1)).toBe(true);
    expect(window.admit('e1', 2)).toBe(true);
    // A jump past the whole window leaves nothing marked in it but the new top.
    expect(window.admit('e1', 5 + 3 * DELIVERY_WINDOW)).toBe(true);
    expect(window.admit('e1', 6 + 2 * DELIVERY_WINDOW)).toBe(true);
    expect(window.admit('e1', 5 + 3 * DELIVERY_WINDOW)).toBe(false);
  });

  it('agrees with a set of everything sent, in any order, for what the window covers', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 3 * DELIVERY_WINDOW }), { maxLength: 400 }),
        (seqs) => {
          const window = new DeliveryWindow();
          const sent = new Set<number>();
          let top = -Infinity;
          for (const seq of seqs) {
            const older = top - seq >= DELIVERY_WINDOW;
            expect(window.admit('e1', seq)).toBe(older || !sent.has(seq));
            sent.add(seq);
            top = Math.max(top, seq);
          }
        },
      ),
    );
  });
});
