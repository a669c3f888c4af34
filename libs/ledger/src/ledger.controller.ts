import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { canonicalTextOf, eventAt, type EventStore, microsToSeconds } from '#des/event-store';
import {
  ApiError,
  AtQuery,
  CONFIG,
  type Config,
  EVENT_STORE,
  READ_STORE,
  Requires,
  ServiceKey,
  VALIDATION_FAILED,
} from '#des/platform';
import type { ReadStore } from '#des/read-store';
import { LEDGER_CHECKPOINTS } from './checkpoints.projection';
import {
  CheckpointQuery,
  CheckpointView,
  ConsistencyProofView,
  ConsistencyQuery,
  InclusionProofView,
  InclusionQuery,
  LedgerEntryView,
  LedgerHeadView,
  LedgerKeyView,
} from './ledger.dto';
import { LedgerSequencerService, ledgerSigner, storedAsWritten } from './ledger-sequencer.service';
import { consistencyProof, inclusionProof, leafHash } from './merkle';
import { entryPosition, withKeptTree } from './tree-sequencer';

/**
 * The organization's transparency log (ADR 0024): the key that signs its
 * checkpoints, the checkpoints, each leaf, and the proofs that check them.
 */
@ApiTags('auditing')
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller('ledger')
export class LedgerController {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(CONFIG) private readonly config: Config,
    private readonly key: ServiceKey,
  ) {}

  @Get(':org/head')
  @ApiOperation({
    operationId: 'getLedgerHead',
    summary: "Read the organization's ledger head: its latest signed checkpoint, now or kept by an instant",
  })
  @Requires('reader')
  @ApiOkResponse({ type: LedgerHeadView })
  async head(@Param('org') org: string, @Query() { at }: AtQuery): Promise<LedgerHeadView> {
    const checkpoint = await this.latest(org, at);
    const treeSize = checkpoint.tree_size as number;
    const position = await entryPosition(this.reads, org, treeSize - 1);
    const event = position === null ? undefined : await eventAt(storedAsWritten(this.events), position);
    if (!event) throw new ApiError(404, 'No checkpoint yet');
    return {
      org,
      at: at ?? null,
      tree_size: treeSize,
      root_hash: checkpoint.root_hash as string,
      position: event.position,
      recorded_at: microsToSeconds(event.recordedAt),
      signed_at: checkpoint.recorded_at as number,
    };
  }

  @Get(':org/key')
  @ApiOperation({ operationId: 'getLedgerKey', summary: 'Read the key that signs the checkpoints' })
  @Requires('reader')
  @ApiOkResponse({ type: LedgerKeyView })
  // One key signs every organization's checkpoints; the path names the organization the reader may read.
  key_(@Param('org') _org: string): LedgerKeyView {
    const signer = ledgerSigner(this.config, this.key);
    return { name: signer.name, public_key: signer.publicKey.toString('base64'), vkey: signer.vkey };
  }

  @Get(':org/checkpoint')
  @ApiOperation({
    operationId: 'getLedgerCheckpoint',
    summary: "Read the organization's latest signed checkpoint, now or kept by an instant",
  })
  @Requires('reader')
  @ApiOkResponse({ type: CheckpointView })
  async checkpoint(
    @Param('org') org: string,
    @Query() { at, tree_size }: CheckpointQuery,
  ): Promise<CheckpointView> {
    if (tree_size === undefined) return checkpointView(await this.latest(org, at));
    if (at !== undefined)
      throw new ApiError(400, VALIDATION_FAILED, {
        tree_size: 'tree_size names one checkpoint: not with at',
      });
    const [kept] = await this.reads.collection(LEDGER_CHECKPOINTS).find({ org, tree_size }, { limit: 1 });
    if (!kept) throw new ApiError(404, `No checkpoint of tree size ${tree_size}`);
    return checkpointView(kept);
  }

  @Get(':org/entries/:index')
  @ApiOperation({ operationId: 'getLedgerEntry', summary: "Read one leaf of the organization's tree" })
  @ApiParam({ name: 'index', schema: { type: 'string', pattern: '^(0|[1-9]\\d{0,14})$' } })
  @Requires('reader')
  @ApiOkResponse({ type: LedgerEntryView })
  async entry(@Param('org') org: string, @Param('index') raw: string): Promise<LedgerEntryView> {
    const latest = (await this.latest(org)).tree_size as number;
    const index = /^(0|[1-9]\d{0,14})$/.test(raw) ? Number(raw) : NaN;
    if (Number.isNaN(index))
      throw new ApiError(400, VALIDATION_FAILED, { index: 'index must be an integer from 0' });
    this.within(
      'index',
      index < latest,
      `index ${index} is not in the latest checkpoint (tree size ${latest})`,
    );
    const position = await entryPosition(this.reads, org, index);
    const event = position === null ? undefined : await eventAt(storedAsWritten(this.events), position);
    if (!event) throw new ApiError(404, 'Entry not found');
    const canonical = canonicalTextOf(event);
    return { index, position: event.position, canonical, leaf_hash: leafHash(canonical).toString('base64') };
  }

  @Get(':org/proofs/inclusion')
  @ApiOperation({ operationId: 'getLedgerInclusionProof', summary: 'Prove a leaf is in a checkpointed tree' })
  @Requires('reader')
  @ApiOkResponse({ type: InclusionProofView })
  async inclusion(@Param('org') org: string, @Query() query: InclusionQuery): Promise<InclusionProofView> {
    const latest = (await this.latest(org)).tree_size as number;
    const size = query.tree_size ?? latest;
    this.within('tree_size', size <= latest, `tree size ${size} is beyond the latest checkpoint (${latest})`);
    this.within('index', query.index < size, `index ${query.index} is not in a tree of size ${size}`);
    const [leaf, hashes] = await withKeptTree(this.reads, org, size, (t) => [
      t.perfect(0, query.index),
      inclusionProof(t, query.index, size),
    ]);
    return {
      index: query.index,
      tree_size: size,
      leaf_hash: (leaf as Buffer).toString('base64'),
      hashes: (hashes as Buffer[]).map((h) => h.toString('base64')),
    };
  }

  @Get(':org/proofs/consistency')
  @ApiOperation({
    operationId: 'getLedgerConsistencyProof',
    summary: 'Prove an older checkpointed tree is a prefix of a newer one',
  })
  @Requires('reader')
  @ApiOkResponse({ type: ConsistencyProofView })
  async consistency(
    @Param('org') org: string,
    @Query() query: ConsistencyQuery,
  ): Promise<ConsistencyProofView> {
    const latest = (await this.latest(org)).tree_size as number;
    const to = query.to ?? latest;
    this.within('to', to <= latest, `tree size ${to} is beyond the latest checkpoint (${latest})`);
    this.within('from', query.from <= to, `tree size ${query.from} is larger than ${to}`);
    const hashes = await withKeptTree(this.reads, org, to, (t) => consistencyProof(t, query.from, to));
    return { from: query.from, to, hashes: hashes.map((h) => h.toString('base64')) };
  }

  private async latest(org: string, at?: number) {
    const doc = await LedgerSequencerService.latestCheckpoint(this.reads, org, at);
    if (!doc) throw new ApiError(404, 'No checkpoint yet');
    return doc;
  }

  /** A parameter within the checkpointed tree, else a 400 naming it. */
  private within(name: string, ok: boolean, message: string): void {
    if (!ok) throw new ApiError(400, VALIDATION_FAILED, { [name]: message });
  }
}

function checkpointView(doc: Record<string, unknown>): CheckpointView {
  return {
    origin: doc.origin as string,
    tree_size: doc.tree_size as number,
    root_hash: doc.root_hash as string,
    note: doc.note as string,
    recorded_at: doc.recorded_at as number,
    timestamp: (doc.timestamp as string | undefined) ?? null,
  };
}
