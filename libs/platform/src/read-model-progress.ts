import { Injectable } from '@nestjs/common';
import type { ProjectionProgress } from '#des/projections';

/**
 * Read-your-writes for the command path (`PROJECTION_PROGRESS`): the progress
 * of this process's projector, or of the checkpoints the projector process
 * writes. The runtime plugs it in once it has made its projector, whose
 * reactions write through the command path: relayed, so neither the runtime
 * nor the command path needs the other to be made first.
 */
@Injectable()
export class ReadModelProgress implements ProjectionProgress {
  private source?: ProjectionProgress;

  plug(source: ProjectionProgress): void {
    this.source = source;
  }

  waitFor(position: number, timeoutMs: number): Promise<boolean> {
    if (!this.source) throw new Error('read-model progress was asked for before the runtime plugged it in');
    return this.source.waitFor(position, timeoutMs);
  }
}
