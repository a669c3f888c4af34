/** Whether a try may go to a target now. */
export type Admission = { go: true } | { go: false; retryAt: number; reason: string };

interface Circuit {
  failures: number;
  /** Open until then (epoch ms); 0 while closed. */
  openUntil: number;
  /** A half-open trial is out: the others wait for its outcome. */
  trialUntil: number;
}

/**
 * A circuit breaker per webhook target: after `failures` consecutive failed
 * tries it opens for `cooldownMs` and refuses tries (each one a failure at
 * once, retried when the circuit half-opens); then one trial goes, while the
 * others wait for it; its success closes the circuit, its failure opens it
 * again. Pure state; the caller passes the clock.
 */
export class CircuitBreaker {
  private readonly circuits = new Map<string, Circuit>();

  constructor(
    private readonly options: {
      failures: number;
      cooldownMs: number;
      /** How long a trial may take: the others wait for it at most this long. */
      trialMs: number;
    },
  ) {}

  admit(key: string, now: number): Admission {
    const c = this.circuits.get(key);
    if (!c || c.openUntil === 0) return { go: true };
    if (now < c.openUntil) return { go: false, retryAt: c.openUntil, reason: this.reason(c) };
    if (now < c.trialUntil) return { go: false, retryAt: c.trialUntil, reason: this.reason(c) };
    c.trialUntil = now + this.options.trialMs;
    return { go: true };
  }

  /** The outcome of a try that went. */
  record(key: string, ok: boolean, now: number): void {
    if (ok) {
      this.circuits.delete(key);
      return;
    }
    const c = this.circuits.get(key) ?? { failures: 0, openUntil: 0, trialUntil: 0 };
    c.failures++;
    c.trialUntil = 0;
    if (c.openUntil !== 0 || c.failures >= this.options.failures) c.openUntil = now + this.options.cooldownMs;
    this.circuits.set(key, c);
  }

  private reason(c: Circuit): string {
    return `the target's circuit is open after ${c.failures} consecutive failures`;
  }
}
