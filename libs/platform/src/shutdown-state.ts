import { Injectable } from '@nestjs/common';

/** Whether this process is stopping: readiness fails and new requests are refused from that instant. */
@Injectable()
export class ShutdownState {
  private stoppingSince?: number;

  get draining(): boolean {
    return this.stoppingSince !== undefined;
  }

  begin(): void {
    this.stoppingSince ??= Date.now();
  }
}

/** The answer to a request that comes while the process stops: another instance (or this one, restarted) takes it. */
export const SHUTTING_DOWN = 'Service shutting down; retry the request.';
