import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { NAME_PATTERN, NAME_PATTERN_MESSAGE } from '#des/platform';
import { type ActionFields, TARGET_TYPES, TRIGGERS, type Trigger } from './action.decider';
import type { DeliveryStatus, Scheduled } from './delivery.decider';
import { WEBHOOK_URL_PATTERN } from './target-address';

export class TargetDto {
  @ApiProperty({ enum: TARGET_TYPES })
  @IsIn(TARGET_TYPES, { message: `type must be one of: ${TARGET_TYPES.join(', ')}` })
  type!: (typeof TARGET_TYPES)[number];

  @ApiProperty({
    description:
      'http(s) URL, no credentials: your webhook, or a Slack incoming-webhook URL. Its host must resolve to public addresses only (unless the operator allows private ones)',
    maxLength: 2048,
    pattern: WEBHOOK_URL_PATTERN,
  })
  @IsString()
  @MaxLength(2048)
  webhook!: string;
}

/** `PUT /actions/{org}/environments`: creates the action named `name`, or updates it. */
export class PutActionDto {
  @ApiProperty({ pattern: NAME_PATTERN.source, maxLength: 128 })
  @IsString()
  @MaxLength(128)
  @Matches(NAME_PATTERN, { message: `name ${NAME_PATTERN_MESSAGE}` })
  name!: string;

  @ApiProperty({ type: [String], description: 'environments watched (each must exist)' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @ArrayUnique()
  @IsString({ each: true })
  environments!: string[];

  @ApiProperty({ enum: TRIGGERS, isArray: true })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayUnique()
  @IsIn(TRIGGERS, { each: true, message: `each trigger must be one of: ${TRIGGERS.join(', ')}` })
  triggers!: Trigger[];

  @ApiProperty({ type: [TargetDto] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10)
  @ValidateNested({ each: true })
  @Type(() => TargetDto)
  targets!: TargetDto[];

  @ApiPropertyOptional({
    type: [String],
    description: 'only artifacts from these flows trigger it (default: any)',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  flows?: string[];

  @ApiPropertyOptional({
    enum: ['environment'],
    description: 'the kind of action (environment actions only)',
  })
  @IsOptional()
  @IsIn(['environment'])
  type?: 'environment';
}

/** An action as endpoint 10 answers it: every field of the spec's Action table. */
export class ActionView implements ActionFields {
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ['environment'] }) type!: string;
  @ApiProperty({ description: "The action's ID number" }) number!: number;
  @ApiProperty({ type: [TargetDto] }) targets!: TargetDto[];
  @ApiProperty({ enum: TRIGGERS, isArray: true }) triggers!: Trigger[];
  @ApiProperty() created_by!: string;
  @ApiProperty({ description: 'Always false' }) is_created_from_slack_app!: boolean;
  @ApiProperty({ description: 'UNIX seconds' }) last_modified_at!: number;
  @ApiProperty({ description: 'UNIX seconds' }) created_at!: number;
  @ApiProperty({ description: 'Whether the latest delivery attempt failed' }) is_failing!: boolean;
  @ApiProperty({ type: 'number', nullable: true, description: 'Last delivered notification; UNIX seconds' })
  last_success_timestamp!: number | null;
  @ApiProperty({ type: 'number', nullable: true, description: 'Last failed delivery attempt; UNIX seconds' })
  last_failure_timestamp!: number | null;
  @ApiProperty({ type: [String], description: 'Only artifacts from these flows trigger it (empty: any)' })
  flows!: string[];
  @ApiProperty({ type: [String] }) environments!: string[];
}

/** The action just created, with its signing secret, shown this once. */
export class CreatedActionView extends ActionView {
  @ApiProperty({ description: 'The signing secret: returned only when created or rotated' }) secret!: string;
}

/** `POST /actions/{org}/{number}/secret`: the new signing secret, shown this once. */
export class ActionSecretView {
  @ApiProperty() number!: number;
  @ApiProperty({ description: 'The new signing secret; the old one no longer signs' }) secret!: string;
}

const STATUSES: Record<DeliveryStatus, true> = { pending: true, delivered: true, dead_lettered: true };
export const DELIVERY_STATUSES = Object.keys(STATUSES) as DeliveryStatus[];
export const ATTEMPT_OUTCOMES = ['delivered', 'failed', 'dead_lettered'] as const;

/** One try at sending a delivery. */
export class DeliveryAttemptView {
  @ApiProperty({ description: '1 for the first sending, +1 for each redelivery of a dead letter' })
  round!: number;
  @ApiProperty({ description: 'The try within its round (0: given up without one)' }) attempt!: number;
  @ApiProperty({ description: 'UNIX seconds' }) at!: number;
  @ApiProperty({ enum: ATTEMPT_OUTCOMES }) outcome!: (typeof ATTEMPT_OUTCOMES)[number];
  @ApiProperty({ type: 'number', nullable: true, description: "The target's HTTP status; null: no answer" })
  status_code!: number | null;
  @ApiProperty({ description: 'Milliseconds' }) duration_ms!: number;
  @ApiProperty({ type: String, nullable: true, description: 'null when delivered' }) error!: string | null;
}

/** A notification of one environment event to one target of the action. */
export class DeliveryView implements Scheduled {
  @ApiProperty() id!: string;
  @ApiProperty({ description: "The action's number" }) action!: number;
  @ApiProperty() action_name!: string;
  @ApiProperty({ description: "Index of the target in the action's targets" }) target_index!: number;
  @ApiProperty({ type: TargetDto }) target!: TargetDto;
  @ApiProperty({ enum: TRIGGERS }) trigger!: Trigger;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The JSON document sent (a webhook’s payload; Slack gets the same facts as a message)',
  })
  payload!: Record<string, unknown>;
  @ApiProperty({ description: 'The payload’s event_type (e.g. ARTIFACT_STARTED)' }) event_type!: string;
  @ApiProperty({ description: 'The environment event that caused it' }) source_event_id!: string;
  @ApiProperty({ enum: DELIVERY_STATUSES }) status!: DeliveryStatus;
  @ApiProperty({ description: '1 for the first sending, +1 for each redelivery' }) round!: number;
  @ApiProperty({ description: 'UNIX seconds' }) scheduled_at!: number;
  @ApiProperty({ type: 'number', nullable: true, description: 'UNIX seconds; null: not delivered' })
  delivered_at!: number | null;
  @ApiProperty({ type: [DeliveryAttemptView] }) attempts!: DeliveryAttemptView[];
  @ApiPropertyOptional({ description: 'Latest attempt; UNIX seconds (absent: none yet)' })
  last_attempt_at?: number;
  @ApiPropertyOptional({ description: 'Latest redelivery asked for; UNIX seconds (absent: none)' })
  redelivery_requested_at?: number;
}

export class DeliveriesPageLinks {
  @ApiProperty() self!: string;
  @ApiProperty({ type: String, nullable: true }) next!: string | null;
  @ApiProperty({ type: String, nullable: true }) prev!: string | null;
}

/** `GET /actions/{org}/{number}/deliveries`: a page of them, newest first. */
export class DeliveriesPage {
  @ApiProperty() page!: number;
  @ApiProperty() per_page!: number;
  @ApiProperty() total_pages!: number;
  @ApiProperty() total_count!: number;
  @ApiProperty({ type: DeliveriesPageLinks }) _links!: DeliveriesPageLinks;
  @ApiProperty({ type: [DeliveryView], description: 'Newest first' }) deliveries!: DeliveryView[];
}

/** `POST .../deliveries/{delivery}/redeliver`: sending again is queued. */
export class RedeliveryView {
  @ApiProperty({ description: "The delivery's id" }) delivery!: string;
  @ApiProperty({ enum: ['pending'] }) status!: 'pending';
}
