/**
 * A circuit breaker per provider. Closed: traffic flows. After `failures` consecutive failures
 * it opens and the router skips the provider for `cooldownMs`; then it is half-open and lets
 * exactly one trial request through: success closes it, failure opens it again.
 */
export type BreakerState = 'closed' | 'open' | 'half_open';

export class CircuitBreaker {
  private consecutiveFailures = 0;
  private openedAt = 0;
  private trialInFlight = false;
  private opened = false;

  constructor(
    private readonly failures: number,
    private readonly cooldownMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get state(): BreakerState {
    if (!this.opened) return 'closed';
    return this.now() - this.openedAt >= this.cooldownMs ? 'half_open' : 'open';
  }

  /** Whether a request may go out now; in half-open state only one at a time. */
  tryAcquire(): boolean {
    const s = this.state;
    if (s === 'closed') return true;
    if (s === 'open' || this.trialInFlight) return false;
    this.trialInFlight = true;
    return true;
  }

  onSuccess(): void {
    this.consecutiveFailures = 0;
    this.opened = false;
    this.trialInFlight = false;
  }

  onFailure(): void {
    this.consecutiveFailures += 1;
    if (this.trialInFlight || this.consecutiveFailures >= this.failures) {
      this.opened = true;
      this.openedAt = this.now();
    }
    this.trialInFlight = false;
  }

  /** A request that ended without telling us anything (client went away, 4xx). */
  onNeutral(): void {
    this.trialInFlight = false;
  }
}
