import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { searchesEventsByStream } from './query-plan';

describe('SQLite query plans', () => {
  it('takes a search of an index range on the stream name as visiting that range only', () => {
    assert.ok(
      searchesEventsByStream([
        'SEARCH events USING COVERING INDEX events_by_stream_time (stream>? AND stream<?)',
      ]),
    );
    assert.ok(
      searchesEventsByStream([
        'SEARCH events USING INDEX sqlite_autoindex_events_2 (stream=? AND revision>?)',
        'USE TEMP B-TREE FOR ORDER BY',
      ]),
    );
  });

  it('takes a scan, or a search on another column, as visiting more than the range', () => {
    assert.ok(!searchesEventsByStream(['SCAN events']));
    assert.ok(!searchesEventsByStream(['SCAN events USING COVERING INDEX events_by_stream_time']));
    assert.ok(!searchesEventsByStream(['SEARCH events USING INDEX events_by_recorded_at (recorded_at<?)']));
    assert.ok(!searchesEventsByStream(['SEARCH events USING INTEGER PRIMARY KEY (rowid<?)']));
    assert.ok(!searchesEventsByStream([]), 'a plan that names no step on events');
  });
});
