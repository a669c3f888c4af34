/** Which cap an amount in flight would pass: its organization's, or the process's. */
export type InFlightRefusal = 'organization' | 'process';

/**
 * Amounts in flight in this process, per organization and in all (bodies'
 * bytes, heavy answers): an amount is taken before its work starts and
 * given back when it ends. Pure counts, so they are tested without a server.
 */
export class InFlight {
  private total = 0;
  private readonly byOrg = new Map<string, number>();

  /** Takes `amount` for `org`, or answers which cap it would pass (`perOrg` 0: none of its own); nothing is taken then. */
  take(org: string, amount: number, perOrg: number, total: number): InFlightRefusal | undefined {
    const ofOrg = this.of(org);
    if (perOrg > 0 && ofOrg + amount > perOrg) return 'organization';
    if (this.total + amount > total) return 'process';
    this.byOrg.set(org, ofOrg + amount);
    this.total += amount;
    return undefined;
  }

  give(org: string, amount: number): void {
    const left = this.of(org) - amount;
    if (left > 0) this.byOrg.set(org, left);
    else this.byOrg.delete(org);
    this.total = Math.max(0, this.total - amount);
  }

  /** What `org` has in flight, or the process in all. */
  of(org?: string): number {
    return org === undefined ? this.total : (this.byOrg.get(org) ?? 0);
  }
}
