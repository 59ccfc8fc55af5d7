import { Clock } from '../../src/common/clock';

/** A clock that moves only when a test says so. */
export class FakeClock extends Clock {
  constructor(private current = Date.UTC(2026, 0, 1)) {
    super();
  }

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    this.current += ms;
  }
}
