/** A wait that ran out (`withTimeout`). */
export class TimedOut extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TimedOut';
  }
}

/** `work`, or a `TimedOut` rejection after `ms` (its timer never holds the process open). */
export function withTimeout<T>(work: Promise<T>, ms: number, message = 'timed out'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TimedOut(message)), ms);
      timer.unref();
    }),
  ]).finally(() => clearTimeout(timer));
}
