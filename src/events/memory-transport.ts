import type { EventEnvelope, EventListener, EventTransport, TransportStatus } from './types.js';

/**
 * Single-instance transport: the bus already delivered every event locally, and there are no
 * other instances, so publishing has nothing left to do.
 */
export class MemoryTransport implements EventTransport {
  readonly name = 'memory' as const;

  async start(): Promise<void> {}

  publish(_event: EventEnvelope, _key: string): void {}

  onRemoteEvent(_listener: EventListener): void {}

  status(): TransportStatus {
    return { transport: 'memory', connected: true, buffered: 0, dropped: 0 };
  }

  async stop(): Promise<void> {}
}
