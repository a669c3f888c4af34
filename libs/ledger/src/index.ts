/** What `#des/ledger` publishes to the other libraries, the apps and the tests; the rest is its own. */
export { ledgerFeature, LedgerSequencerModule } from './ledger.module';
export {
  consistencyProof,
  GrowingTree,
  inclusionProof,
  leafHash,
  rootAt,
  verifyConsistency,
  verifyInclusion,
  type TreeHashes,
} from './merkle';
export { checkpointText, noteSigner, openNote, parseCheckpoint, parseVkey, signNote } from './signed-note';
export { tileKey, tilesNeeded, TileTree, TileWriter } from './tiles';
export { entryPosition, integratedSize, TreeSequencer, withKeptTree } from './tree-sequencer';
export { ledgerSigner } from './ledger-sequencer.service';
export { verifyTrees, type TreeReport } from './verify-trees';
export { checkpointCovering, type CoveringCheckpoint } from './checkpoint-covering';
