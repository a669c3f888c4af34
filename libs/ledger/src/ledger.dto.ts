import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { AtQuery } from '#des/platform';

const MAX_INDEX = 2 ** 48;
const integer = (name: string, min: number) => `${name} must be an integer from ${min}`;

/** An optional tree-size query parameter: an integer from 1, else a 400 naming it. */
const OptionalTreeSize = (name: string, description: string) =>
  applyDecorators(
    ApiPropertyOptional({ minimum: 1, maximum: MAX_INDEX, type: 'integer', description }),
    IsOptional(),
    Type(() => Number),
    IsInt({ message: integer(name, 1) }),
    Min(1, { message: integer(name, 1) }),
    Max(MAX_INDEX, { message: integer(name, 1) }),
  );

export class LedgerKeyView {
  @ApiProperty({ description: 'The key name: the signature lines of every checkpoint name it' })
  name!: string;
  @ApiProperty({ description: 'The Ed25519 public key, 32 raw bytes in base64' }) public_key!: string;
  @ApiProperty({ description: 'The C2SP verifier key: `<name>+<hex key hash>+<base64(0x01 ‖ public key)>`' })
  vkey!: string;
}

export class CheckpointView {
  @ApiProperty({ description: '`<ledger name>/<org>`' }) origin!: string;
  @ApiProperty({ description: "Leaves in the organization's tree: its events, in log order" })
  tree_size!: number;
  @ApiProperty({ description: 'RFC 9162 root hash of the tree, base64' }) root_hash!: string;
  @ApiProperty({ description: 'The C2SP signed note: the checkpoint body, a blank line, its signature' })
  note!: string;
  @ApiProperty({ description: 'When it was kept; UNIX seconds' }) recorded_at!: number;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      "Its RFC 3161 timestamp (DER TimeStampResp, base64) of the note's bytes, where a TSA is configured (DES_TSA_URL) and has answered; else null",
  })
  timestamp!: string | null;
}

/** The organization's ledger head: its latest signed checkpoint (by an instant), and the event it ends at. */
export class LedgerHeadView {
  @ApiProperty() org!: string;
  @ApiProperty({ type: 'number', nullable: true, description: 'The instant asked for (`?at=`); null: now' })
  at!: number | null;
  @ApiProperty({ description: "Leaves in the checkpoint's tree: the organization's events it covers" })
  tree_size!: number;
  @ApiProperty({ description: 'RFC 9162 root hash of that tree, base64 (as the signed note carries it)' })
  root_hash!: string;
  @ApiProperty({ description: 'Log position of the last event it covers' }) position!: number;
  @ApiProperty({ description: 'When that event was recorded; UNIX seconds' }) recorded_at!: number;
  @ApiProperty({ description: 'When the checkpoint was signed and kept; UNIX seconds' })
  signed_at!: number;
}

export class CheckpointQuery extends AtQuery {
  @OptionalTreeSize(
    'tree_size',
    'The checkpoint kept for exactly this tree size (instead of the latest; not with `at`)',
  )
  tree_size?: number;
}

export class LedgerEntryView {
  @ApiProperty({ description: "The leaf's index in the organization's tree" }) index!: number;
  @ApiProperty({ description: "The event's log position" }) position!: number;
  @ApiProperty({ description: 'The exact text hashed: the canonical JSON of the event as stored' })
  canonical!: string;
  @ApiProperty({ description: 'SHA-256(0x00 ‖ canonical), base64' }) leaf_hash!: string;
}

export class InclusionProofView {
  @ApiProperty() index!: number;
  @ApiProperty() tree_size!: number;
  @ApiProperty({ description: 'base64' }) leaf_hash!: string;
  @ApiProperty({ type: [String], description: 'The audit path, leaf to root (RFC 9162 §2.1.3), base64' })
  hashes!: string[];
}

export class ConsistencyProofView {
  @ApiProperty() from!: number;
  @ApiProperty() to!: number;
  @ApiProperty({ type: [String], description: 'RFC 9162 §2.1.4, base64' }) hashes!: string[];
}

export class InclusionQuery {
  @ApiProperty({ minimum: 0, maximum: MAX_INDEX, type: 'integer', description: 'The leaf' })
  @Type(() => Number)
  @IsInt({ message: integer('index', 0) })
  @Min(0, { message: integer('index', 0) })
  @Max(MAX_INDEX, { message: integer('index', 0) })
  index!: number;

  @OptionalTreeSize('tree_size', 'The tree the proof is against (default: the latest checkpoint)')
  tree_size?: number;
}

export class ConsistencyQuery {
  @ApiProperty({ minimum: 1, maximum: MAX_INDEX, type: 'integer', description: 'The older tree size' })
  @Type(() => Number)
  @IsInt({ message: integer('from', 1) })
  @Min(1, { message: integer('from', 1) })
  @Max(MAX_INDEX, { message: integer('from', 1) })
  from!: number;

  @OptionalTreeSize('to', 'The newer tree size (default: the latest checkpoint)')
  to?: number;
}
