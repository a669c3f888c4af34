/** What `#des/ledger` publishes to the other libraries, the apps and the tests; the rest is its own. */
export { EvidenceBundlesModule, ledgerFeature, LedgerSequencerModule } from './ledger.module';
export {
  BUNDLE_FORMAT,
  EvidenceBundles,
  jsonFile,
  type BundleFile,
  type BundleZip,
} from './evidence-bundles';
export { type BundleSubject } from './bundle-export.decider';
export { runBundleVerifier } from './verify-bundle-file';
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
export { entryPosition, integratedSize, leafIndexes, TreeSequencer, withKeptTree } from './tree-sequencer';
export { ledgerSigner } from './ledger-sequencer.service';
export { verifyTrees, type TreeReport } from './verify-trees';
export { checkpointCovering, type CoveringCheckpoint } from './checkpoint-covering';
