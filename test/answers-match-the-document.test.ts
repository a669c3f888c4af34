import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { describe, it } from 'node:test';
import request from 'supertest';
import { driftOf } from './support/answers-match-the-document';

const json = { 'content-type': 'application/json; charset=utf-8' };

describe('every e2e answer is held to the OpenAPI document', () => {
  it('names a body its schema refuses, an undeclared status and an undeclared media type', () => {
    const flow = { name: 'web', description: '' };
    assert.match(
      driftOf('GET', '/api/v2/flows/acme/web', { status: 200, headers: json, body: flow }) ?? '',
      /GET \/api\/v2\/flows\/\{org\}\/\{flow\} answered 200 with a body its schema refuses/,
    );
    assert.match(
      driftOf('GET', '/api/v2/flows/acme/web', { status: 418, headers: json, body: {} }) ?? '',
      /a status its operation does not declare/,
    );
    assert.match(
      driftOf('GET', '/api/v2/flows/acme', {
        status: 200,
        headers: { 'content-type': 'text/csv' },
        body: {},
        text: 'a',
      }) ?? '',
      /with text\/csv, not one it declares/,
    );
    const error = { message: 'Flow not found' };
    assert.equal(
      driftOf('GET', '/api/v2/flows/acme/web', { status: 404, headers: json, body: error }),
      undefined,
    );
    assert.equal(driftOf('GET', '/health/live', { status: 200, headers: json, body: {} }), undefined);
  });

  it('fails the supertest request that received a drifting answer', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, json).end(JSON.stringify([{ name: 7 }]));
    });
    await assert.rejects(
      request(server).get('/api/v2/flows/acme').then(),
      /the answer drifts from the OpenAPI document: GET \/api\/v2\/flows\/\{org\} answered 200/,
    );
  });
});
