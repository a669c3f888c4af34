import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import type { Response } from 'superagent';

/** supertest parser keeping a binary body (a PDF) as one Buffer. */
export const binary = (res: Response, done: (err: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => done(null, Buffer.concat(chunks)));
};

/** A PDF's text, as poppler's pdftotext lays it out. */
export const textOf = (pdf: Buffer) => {
  const r = spawnSync('pdftotext', ['-layout', '-', '-'], { input: pdf, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
};
