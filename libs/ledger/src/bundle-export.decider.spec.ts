import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type BundleExported, bundleExportDecider, type RecordExport } from './bundle-export.decider';

const context = { now: 0, newId: () => 'id' };
const exported: RecordExport = {
  subject: { kind: 'trail', flow: 'shop', trail: 'build-1' },
  at: 1_795_000_000.5,
  manifest_sha256: 'ab'.repeat(32),
  tree_size: 42,
  events: 7,
  bytes: 12_345,
};

describe('bundle exports', () => {
  it('records an export once, with what it showed', () => {
    const events = bundleExportDecider.decide(exported, bundleExportDecider.initialState, context);
    assert.deepEqual(events, [{ type: 'ledger_bundle_exported', data: exported }]);
  });

  it('records nothing again on a stream that holds it (a retried command)', () => {
    const state = bundleExportDecider.evolve(
      bundleExportDecider.initialState,
      { type: 'ledger_bundle_exported', data: exported } as BundleExported,
      0,
    );
    assert.deepEqual(bundleExportDecider.decide(exported, state, context), []);
  });
});
