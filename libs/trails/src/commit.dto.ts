import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { Commit } from './commit';
import type { RepoInfo } from './trail.events';

/** The spec's commit object, as every answer that names a commit shows it. */
export class CommitView implements Commit {
  @ApiProperty() sha1!: string;
  @ApiProperty({ type: String, nullable: true }) message!: string | null;
  @ApiProperty({ type: String, nullable: true }) author!: string | null;
  @ApiProperty({ type: String, nullable: true }) branch!: string | null;
  @ApiProperty({ type: 'number', nullable: true, description: 'UNIX seconds' }) timestamp!: number | null;
  @ApiProperty({ type: String, nullable: true }) url!: string | null;
}

/** A repository as a trail or an artifact names it. */
export class RepoInfoView implements RepoInfo {
  @ApiProperty() name!: string;
  @ApiPropertyOptional() url?: string;
  @ApiPropertyOptional() provider?: string;
}
