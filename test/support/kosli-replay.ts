import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Response } from 'supertest';
import type { TestApp } from './app';

type TestAgent = TestApp['http'];

/**
 * The Kosli CLI's requests as it sent them, recorded byte for byte with
 * test/kosli-cli/record.mjs (multipart boundaries and all), one file per
 * command in test/kosli-cli/requests.
 */
const RECORDED = join(process.cwd(), 'test/kosli-cli/requests');

export interface Recorded {
  method: string;
  path: string;
  content_type: string | null;
  body_base64: string;
}

export const recorded = (command: string): Recorded[] =>
  JSON.parse(readFileSync(join(RECORDED, `${command}.json`), 'utf8')) as Recorded[];

type Method = 'get' | 'put' | 'post' | 'patch' | 'delete';

/**
 * Sends a command's recorded requests in order (the last `only` of them when
 * given); answers every response. A Buffer goes as it is; superagent would
 * wrap one in JSON when the type is JSON, so JSON goes as its text.
 */
export async function replayAll(http: TestAgent, command: string, only?: number): Promise<Response[]> {
  const requests = recorded(command);
  const answers: Response[] = [];
  for (const r of only ? requests.slice(-only) : requests) {
    let req = http[r.method.toLowerCase() as Method](r.path);
    const body = Buffer.from(r.body_base64, 'base64');
    if (r.content_type) req = req.set('Content-Type', r.content_type);
    const bytes = r.content_type?.startsWith('multipart/') ? body : body.toString('utf8');
    answers.push(body.length ? await req.send(bytes) : await req);
  }
  return answers;
}

/** As `replayAll`, answering the last response. */
export async function replay(http: TestAgent, command: string, only?: number): Promise<Response> {
  return (await replayAll(http, command, only)).at(-1)!;
}
