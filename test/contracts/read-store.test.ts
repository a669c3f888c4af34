import { after } from 'node:test';
import { readStoreContract } from '#des/read-store/contract';
import { MemoryReadStore, MongoReadStore } from '#des/read-store';
import { Engine, mongoEngine, uniqueName } from '../support/engines';

readStoreContract('memory (mingo)', async () => new MemoryReadStore());

let engine: Engine | undefined;
readStoreContract('MongoDB wire', async () => {
  engine = await mongoEngine();
  console.log(`# read store contract runs against ${engine.description}`);
  return new MongoReadStore({ url: engine.url, database: uniqueName('contract') }).connect();
});
after(async () => engine?.stop());
