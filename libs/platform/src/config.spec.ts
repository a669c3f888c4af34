import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig, runs } from './config';

describe('loadConfig', () => {
  it('is embedded when no server is configured', () => {
    const c = loadConfig({ DES_DATA_DIR: '/tmp/d' });
    assert.equal(c.mode, 'embedded');
    assert.deepEqual(c.eventStore, { kind: 'sqlite', path: '/tmp/d/events.db' });
    assert.deepEqual(c.readStore, { kind: 'memory' });
    assert.deepEqual(c.jobs, { kind: 'in-process' });
    assert.equal(c.port, 8080);
  });

  it('selects each production engine from its variable', () => {
    const c = loadConfig({
      KURRENTDB_URL: 'kurrentdb://k:2113?tls=false',
      MONGODB_URL: 'mongodb://m/des',
      REDIS_URL: 'redis://r:6379',
    });
    assert.equal(c.mode, 'server');
    assert.deepEqual(c.eventStore, { kind: 'kurrentdb', url: 'kurrentdb://k:2113?tls=false' });
    assert.equal(c.readStore.kind, 'mongodb');
    assert.equal(c.jobs.kind, 'bullmq');
  });

  it('accepts EVENT_STORE_URL as sqlite:<path> or a KurrentDB URL, and refuses anything else', () => {
    assert.deepEqual(loadConfig({ EVENT_STORE_URL: 'sqlite:/var/des/e.db' }).eventStore, {
      kind: 'sqlite',
      path: '/var/des/e.db',
    });
    assert.equal(loadConfig({ EVENT_STORE_URL: 'esdb://k:2113' }).eventStore.kind, 'kurrentdb');
    assert.throws(() => loadConfig({ EVENT_STORE_URL: 'postgres://x' }), /EVENT_STORE_URL/);
  });

  it('maps roles to the parts a process runs', () => {
    assert.ok(runs('all', 'projector') && runs('all', 'worker') && runs('all', 'api'));
    assert.ok(runs('api', 'api') && !runs('api', 'projector'));
  });
});
