/** The time source. Injected so tests move time instead of sleeping. */
export abstract class Clock {
  /** Milliseconds since the Unix epoch. */
  abstract now(): number;
}

export class SystemClock extends Clock {
  now(): number {
    return Date.now();
  }
}
