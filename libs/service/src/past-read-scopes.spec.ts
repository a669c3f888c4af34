import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scopeFor } from '#des/event-store';
import { allProjections } from './features';

describe('past reads of the service go through the scope index', () => {
  it("given every projection's declared sources, then each prefix a past read folds is an index scope of its own", () => {
    let prefixes = 0;
    for (const projection of allProjections) {
      if (!projection.sources) continue;
      for (const within of [undefined, 'web']) {
        for (const prefix of projection.sources('acme', within).prefixes ?? []) {
          prefixes++;
          // The scope itself: the read follows its links, none of another scope's events.
          assert.equal(scopeFor(prefix), prefix, `${projection.name} reads ${prefix}`);
        }
      }
    }
    assert.ok(prefixes > 10, `${prefixes} prefixes declared`);
  });
});
