import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiTags,
} from '@nestjs/swagger';
import { type EventStore, microsToSeconds, secondsToMicros } from '#des/event-store';
import { ApiError, AtQuery, EVENT_STORE, Requires } from '#des/platform';

/** The organization's hash chain head, at an instant or now. */
export class LedgerHeadView {
  @ApiProperty() org!: string;
  @ApiProperty({ type: 'number', nullable: true, description: 'The instant asked for (`?at=`); null: now' })
  at!: number | null;
  @ApiProperty({ description: 'Log position of the last event of the organization by then (0: none)' })
  position!: number;
  @ApiProperty({ type: 'number', nullable: true, description: 'When that event was recorded; UNIX seconds' })
  recorded_at!: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'Hex SHA-256 chaining every event before it' })
  hash!: string | null;
}

/**
 * The organization's hash chain head: every event of the organization is a
 * link (SHA-256 of the previous hash and the event), so this one hash pins
 * its whole history. Compare it later with `npm run cli -- verify <org>`.
 */
@ApiTags('auditing')
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller('ledger')
export class LedgerController {
  constructor(@Inject(EVENT_STORE) private readonly events: EventStore) {}

  @Get(':org/head')
  @ApiOperation({ operationId: 'getLedgerHead', summary: "Read the head of the organization's hash chain" })
  @Requires('reader')
  @ApiOkResponse({ type: LedgerHeadView })
  async head(@Param('org') org: string, @Query() { at }: AtQuery): Promise<LedgerHeadView> {
    const head = await this.events.ledgerHead(org, {
      untilRecordedAt: at === undefined ? undefined : secondsToMicros(at),
    });
    if (!head) throw new ApiError(501, 'This event store keeps no hash chain');
    return {
      org,
      at: at ?? null,
      position: head.position,
      recorded_at: head.position ? microsToSeconds(head.recordedAt) : null,
      hash: head.hash || null,
    };
  }
}
