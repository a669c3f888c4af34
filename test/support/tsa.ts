import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface LocalTsa {
  url: string;
  /** The CA certificate that issued the TSA's: what `openssl ts -verify -CAfile` takes. */
  caFile: string;
  dir: string;
  /** Requests answered so far. */
  answered(): number;
  /** Requests refused so far (the first `refuseFirst`). */
  refused(): number;
  close(): Promise<void>;
}

function openssl(dir: string, ...args: string[]): Buffer {
  const run = spawnSync('openssl', args, { cwd: dir });
  if (run.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${run.stderr.toString()}`);
  return run.stdout;
}

/**
 * An RFC 3161 time-stamping authority on loopback, made with `openssl ts`: a
 * CA, a TSA certificate it issued (extended key usage timeStamping), and an
 * HTTP server answering each `application/timestamp-query` with `openssl ts
 * -reply` (the first `refuseFirst` with a 503, as a TSA briefly down would).
 */
export async function startLocalTsa(options: { refuseFirst?: number } = {}): Promise<LocalTsa> {
  const dir = mkdtempSync(join(tmpdir(), 'des-tsa-'));
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl(
    dir,
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    '2',
    '-subj',
    '/CN=Test TSA CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  openssl(dir, 'req', ...ec, '-keyout', 'tsa.key', '-out', 'tsa.csr', '-subj', '/CN=Test TSA');
  writeFileSync(
    join(dir, 'tsa.ext'),
    'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=critical,timeStamping\n',
  );
  openssl(
    dir,
    'x509',
    '-req',
    '-in',
    'tsa.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'tsa.crt',
    '-days',
    '2',
    '-extfile',
    'tsa.ext',
  );
  writeFileSync(
    join(dir, 'tsa.cnf'),
    [
      '[ tsa ]',
      'default_tsa = local',
      '[ local ]',
      `dir = ${dir}`,
      'serial = $dir/serial',
      'signer_cert = $dir/tsa.crt',
      'certs = $dir/ca.crt',
      'signer_key = $dir/tsa.key',
      'signer_digest = sha256',
      'default_policy = 1.2.3.4.1',
      'digests = sha256',
      'accuracy = secs:1',
      'ess_cert_id_alg = sha256',
      'ess_cert_id_chain = no',
      'tsa_name = yes',
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'serial'), '01\n');
  let answered = 0;
  let refused = 0;
  const server: Server = createServer((req, res) => {
    if (refused < (options.refuseFirst ?? 0)) {
      refused++;
      req.resume();
      res.writeHead(503).end('not yet');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const n = ++answered;
        writeFileSync(join(dir, `${n}.tsq`), Buffer.concat(chunks));
        openssl(dir, 'ts', '-reply', '-config', 'tsa.cnf', '-queryfile', `${n}.tsq`, '-out', `${n}.tsr`);
        res.writeHead(200, { 'content-type': 'application/timestamp-reply' });
        res.end(readFileSync(join(dir, `${n}.tsr`)));
      } catch (error) {
        res.writeHead(500).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    caFile: join(dir, 'ca.crt'),
    dir,
    answered: () => answered,
    refused: () => refused,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** `openssl ts -verify` of a TimeStampResp against the data it timestamps: its output, and whether it verified. */
export function opensslVerifies(
  tsa: LocalTsa,
  response: Buffer,
  data: Buffer,
): { ok: boolean; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'des-tsr-'));
  writeFileSync(join(dir, 'r.tsr'), response);
  writeFileSync(join(dir, 'data'), data);
  const run = spawnSync(
    'openssl',
    ['ts', '-verify', '-in', 'r.tsr', '-data', 'data', '-CAfile', tsa.caFile],
    {
      cwd: dir,
    },
  );
  return { ok: run.status === 0, output: `${run.stdout.toString()}${run.stderr.toString()}` };
}
