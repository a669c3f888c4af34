import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { guardedLookup, literalProblem, privateRange, targetProblem, urlProblem } from './target-address';

describe('action targets: where a notification may go', () => {
  it('names the range of every address that is not public unicast', () => {
    assert.equal(privateRange('93.184.216.34'), null);
    assert.equal(privateRange('2606:2800:220:1:248:1893:25c8:1946'), null);
    for (const [address, range] of [
      ['127.0.0.1', 'loopback'],
      ['10.0.0.1', 'private'],
      ['172.16.5.4', 'private'],
      ['192.168.1.1', 'private'],
      ['169.254.169.254', 'linkLocal'],
      ['100.64.0.1', 'carrierGradeNat'],
      ['0.0.0.0', 'unspecified'],
      ['::1', 'loopback'],
      ['fe80::1', 'linkLocal'],
      ['fd00::1', 'uniqueLocal'],
      ['::ffff:10.0.0.1', 'private'],
    ])
      assert.equal(privateRange(address), range, address);
  });

  it('takes absolute http(s) URLs without credentials', () => {
    assert.equal(urlProblem('https://hooks.example.com/x'), null);
    assert.equal(urlProblem('not a url'), 'must be an absolute http(s) URL');
    assert.equal(urlProblem('ftp://example.com/'), 'must be an http(s) URL');
    assert.equal(urlProblem('https://user:pw@example.com/'), 'must not carry credentials');
    assert.equal(urlProblem('https://example.com/a b'), 'must be an absolute http(s) URL');
    assert.equal(urlProblem('HTTPS://[::1]:8443/hook?x=1'), null);
  });

  it('refuses a name that resolves to a private address, unless allowed', async () => {
    assert.match(
      (await targetProblem('http://localhost/x', false))!,
      /localhost resolves to .* \(loopback\)/,
    );
    assert.equal(await targetProblem('http://localhost/x', true), null);
    assert.match((await targetProblem('http://[::1]/x', false))!, /\(loopback\)/);
  });

  it('accepts a name that does not resolve yet: each delivery checks it again', async () => {
    assert.equal(await targetProblem('http://no-such-host.invalid/x', false), null);
    const lookup = guardedLookup(false);
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      lookup('no-such-host.invalid', { family: 0 }, (e) => resolve(e)),
    );
    assert.match(String(error?.code), /ENOTFOUND|EAI_AGAIN/);
  });

  it('checks at connection time too: the lookup used for delivery refuses private answers', async () => {
    const lookup = guardedLookup(false);
    const error = await new Promise<Error | null>((resolve) =>
      lookup('localhost', { family: 0 }, (e) => resolve(e as Error | null)),
    );
    assert.match(error!.message, /\(loopback\)/);
    const allowed = await new Promise<string>((resolve, reject) =>
      guardedLookup(true)('localhost', {}, (e, address) => (e ? reject(e) : resolve(address as string))),
    );
    assert.ok(allowed === '127.0.0.1' || allowed === '::1', allowed);
    assert.match(literalProblem('http://127.0.0.1:9/x', false)!, /\(loopback\)/);
    assert.equal(literalProblem('http://127.0.0.1:9/x', true), null);
  });
});
