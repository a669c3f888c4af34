import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { PolicyErrorKind } from '#des/policy-engine';
import type { EvaluationEvent, EvaluationState } from './evaluation.decider';

type EvaluationResult = Extract<EvaluationEvent, { type: 'evaluation_completed' }>['data']['result'];
type EvaluationError = Extract<EvaluationEvent, { type: 'evaluation_failed' }>['data']['error'];

/** An evaluation's status as answered (`none` is only the decider's state before the request). */
export type EvaluationStatus = Exclude<EvaluationState['status'], 'none'>;

/** Every status and every error kind, once each: the compiler holds these to their types. */
const STATUSES: Record<EvaluationStatus, true> = { pending: true, completed: true, failed: true };
const ERROR_KINDS: Record<PolicyErrorKind, true> = { policy_error: true, timeout: true, service_error: true };
export const EVALUATION_STATUSES = Object.keys(STATUSES) as EvaluationStatus[];
export const EVALUATION_ERROR_KINDS = Object.keys(ERROR_KINDS) as PolicyErrorKind[];

/** The policy's output: `allow` and `violations`, as the evaluator normalises them. */
export class EvaluationResultView implements EvaluationResult {
  @ApiProperty({ description: 'The policy’s `allow` rule' }) allow!: boolean;
  @ApiProperty({ type: [String], description: 'The policy’s `violations` rule' }) violations!: string[];
}

export class EvaluationErrorView implements EvaluationError {
  @ApiProperty({
    enum: EVALUATION_ERROR_KINDS,
    description: 'policy_error: the policy is broken; timeout: over its budget; service_error: our fault',
  })
  kind!: PolicyErrorKind;
  @ApiProperty() message!: string;
}

/** An evaluation: pending when created, then completed (`result`) or failed (`error`). */
export class EvaluationView {
  @ApiProperty({ description: 'Identifier minted by the service' }) id!: string;
  @ApiProperty({ enum: EVALUATION_STATUSES }) status!: EvaluationStatus;
  @ApiProperty({ description: 'When the evaluation was asked for; UNIX seconds' }) requested_at!: number;
  @ApiProperty({ description: 'The recorded instant every trail of the context resolves at; UNIX seconds' })
  recorded_at!: number;
  @ApiPropertyOptional({
    description: 'The log position the trails were folded up to (absent for early evaluations)',
  })
  recorded_position?: number;
  @ApiPropertyOptional({ type: EvaluationResultView, description: 'Present only when status is completed' })
  result?: EvaluationResultView;
  @ApiPropertyOptional({ type: EvaluationErrorView, description: 'Present only when status is failed' })
  error?: EvaluationErrorView;
}
