import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { canonicalTextOf, SqliteEventStore } from '#des/event-store';
import {
  checkpointText,
  inclusionProof,
  leafHash,
  noteSigner,
  rootAt,
  signNote,
  TreeSequencer,
  verifyInclusion,
  verifyTrees,
  withKeptTree,
} from '#des/ledger';
import { MemoryReadStore } from '#des/read-store';

const signer = noteSigner('des-test', createHash('sha256').update('tamper test key').digest());

describe('the transparency log finds any changed byte of a stored event (property)', () => {
  it('verify names the checkpoint that no longer holds, and the leaf no longer proves', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        async (events, which, at) => {
          const path = join(mkdtempSync(join(tmpdir(), 'des-tamper-')), 'events.db');
          const store = new SqliteEventStore({ path });
          const reads = new MemoryReadStore();
          try {
            for (let i = 0; i < events; i++)
              await store.append(
                `note-acme/n${i}`,
                [
                  {
                    id: randomUUID(),
                    type: 'note_taken',
                    data: { text: `note number ${i}` },
                    metadata: { org: 'acme' },
                  },
                ],
                'no_stream',
              );
            const sequencer = new TreeSequencer(store, reads);
            await sequencer.catchUp();
            const root = await withKeptTree(reads, 'acme', events, (t) => rootAt(t, events));
            const note = signNote(
              checkpointText({ origin: 'des-test/acme', treeSize: events, rootHash: root }),
              signer,
            );
            await store.append(
              'ledger-acme/checkpoints',
              [
                {
                  id: randomUUID(),
                  type: 'ledger_checkpoint_signed',
                  data: {
                    org: 'acme',
                    origin: 'des-test/acme',
                    tree_size: events,
                    root_hash: root.toString('base64'),
                    note,
                  },
                  metadata: {},
                },
              ],
              'no_stream',
            );
            assert.equal((await verifyTrees(store, signer.vkey)).trees[0].failed, undefined, 'intact first');

            // One character of one stored event's data, changed behind the service's back.
            const index = which % events;
            const db = new Database(path);
            const row = db
              .prepare(
                "SELECT position, data FROM events WHERE type = 'note_taken' ORDER BY position LIMIT 1 OFFSET ?",
              )
              .get(index) as { position: number; data: string };
            const text = JSON.parse(row.data) as { text: string };
            const k = at % text.text.length;
            const changed =
              text.text.slice(0, k) + (text.text[k] === 'x' ? 'y' : 'x') + text.text.slice(k + 1);
            db.prepare('UPDATE events SET data = ? WHERE position = ?').run(
              JSON.stringify({ text: changed }),
              row.position,
            );
            db.close();

            const report = (await verifyTrees(store, signer.vkey)).trees[0];
            assert.ok(report.failed, 'verify finds it');
            assert.ok(
              report.failed.leaves.from <= index && index < report.failed.leaves.to,
              JSON.stringify(report.failed),
            );
            const [event] = await store.readAll(row.position - 1, 1);
            const proof = await withKeptTree(reads, 'acme', events, (t) => inclusionProof(t, index, events));
            assert.equal(
              verifyInclusion(leafHash(canonicalTextOf(event)), index, events, proof, root),
              false,
              'the changed event no longer proves against the checkpoint',
            );
          } finally {
            await store.close();
          }
        },
      ),
      { numRuns: 30 },
    );
  });
});
