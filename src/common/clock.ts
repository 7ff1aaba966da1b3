/** Time as a port, so tests can pin it. */
export abstract class Clock {
  abstract now(): Date;
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}

/** A clock that says what it is told (tests, development): `FixedClock.at('2026-01-01')`, then `advance(ms)`. */
export class FixedClock extends Clock {
  private current: Date;

  private constructor(start: Date) {
    super();
    this.current = start;
  }

  static at(start: string | Date): FixedClock {
    return new FixedClock(new Date(start));
  }

  now(): Date {
    return new Date(this.current.getTime());
  }

  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}
