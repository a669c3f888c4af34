import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Request } from 'express';
import { PUBLIC_URL_SETTING, workspaceUrl } from './workspace-link';

/** A request as express gives it, with only what a link needs. */
const requestTo = (host: string, publicUrl?: string) =>
  ({
    protocol: 'http',
    get: (name: string) => (name.toLowerCase() === 'host' ? host : undefined),
    app: { get: (setting: string) => (setting === PUBLIC_URL_SETTING ? publicUrl : undefined) },
  }) as unknown as Request;

describe('workspace links (html_url)', () => {
  it('start with the address the request came to, each segment encoded', () => {
    assert.equal(
      workspaceUrl(requestTo('des.local:8080'), ['acme', 'flows', 'web/app', 'trails', 'main #1']),
      'http://des.local:8080/ui/acme/flows/web%2Fapp/trails/main%20%231',
    );
  });

  it('start with DES_PUBLIC_URL when it is set (behind a proxy)', () => {
    assert.equal(
      workspaceUrl(requestTo('10.0.0.7:8080', 'https://evidence.example.com/'), [
        'acme',
        'environments',
        'prod',
      ]),
      'https://evidence.example.com/ui/acme/environments/prod',
    );
  });

  it('pin the page to an instant, to the microsecond', () => {
    assert.equal(
      workspaceUrl(requestTo('h'), ['acme'], 1_795_459_433.000016),
      'http://h/ui/acme?at=2026-11-23T18%3A43%3A53.000016Z',
    );
  });
});
