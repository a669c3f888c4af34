import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { type PolicyEvent, POLICY_TYPES, type PolicyType } from './policy.decider';

/** What a policy's events name: the version it added, or the description it changed. */
export class PolicyEventDataView {
  @ApiPropertyOptional({ description: 'policy_created and policy_version_added: the version' })
  version?: number;
  @ApiPropertyOptional({ description: 'policy_updated: the new description' })
  description?: string;
}

const POLICY_EVENT_TYPES = [
  'policy_created',
  'policy_version_added',
  'policy_updated',
] as const satisfies readonly PolicyEvent['type'][];

export class PolicyEventView {
  @ApiProperty({ enum: POLICY_EVENT_TYPES }) type!: PolicyEvent['type'];
  @ApiProperty({ description: 'UNIX seconds' }) timestamp!: number;
  @ApiProperty({ description: 'Who made it (empty: unknown)' }) user!: string;
  @ApiProperty({ type: PolicyEventDataView }) data!: PolicyEventDataView;
}

export class PolicyVersionView {
  @ApiProperty({ description: 'From 1, one more for each changed file' }) version!: number;
  @ApiProperty() comment!: string;
  @ApiProperty() created_by!: string;
  @ApiProperty({ description: 'UNIX seconds' }) timestamp!: number;
  @ApiProperty({ description: 'The policy file, as uploaded' }) policy_yaml!: string;
}

/** A policy as endpoint 8 answers it: every field of the spec's Policy table. */
export class PolicyView {
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ enum: POLICY_TYPES }) type!: PolicyType;
  @ApiProperty() archived!: boolean;
  @ApiProperty({ description: 'UNIX seconds' }) created_at!: number;
  @ApiProperty({ description: 'UNIX seconds' }) last_modified_at!: number;
  @ApiProperty() created_by!: string;
  @ApiProperty({ type: [PolicyEventView], description: 'Oldest first' }) events!: PolicyEventView[];
  @ApiProperty({ type: [PolicyVersionView], description: 'Oldest first; the latest last' })
  versions!: PolicyVersionView[];
  @ApiProperty({ type: [String], description: 'The environments it is attached to, by name' })
  consuming_envs!: string[];
}
