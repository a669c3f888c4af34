import ipaddr from 'ipaddr.js';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';

/** Why an address may not be a target: its range, unless it is public unicast. */
export function privateRange(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  const range = ipaddr.process(address).range();
  return range === 'unicast' ? null : range;
}

/** A target URL's syntax: absolute http(s), no credentials in it. */
/** The form of a target URL, as the OpenAPI document states it; the parse below is checked too. */
export const WEBHOOK_URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#@]+([/?#]\\S*)?$';
const WEBHOOK_URL = new RegExp(WEBHOOK_URL_PATTERN);

export function urlProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http(s) URL';
  if (url.username || url.password) return 'must not carry credentials';
  // What the parser forgives (spaces, backslashes) the document's pattern does not.
  if (!WEBHOOK_URL.test(text)) return 'must be an absolute http(s) URL';
  return null;
}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

function refusal(host: string, address: string, range: string): string {
  return `${host} resolves to ${address} (${range}); private, loopback and link-local targets are refused unless DES_ACTIONS_ALLOW_PRIVATE_TARGETS=true`;
}

/**
 * Checks a target when an action is saved: its form, its literal address,
 * and every address its name resolves to now. A name that does not resolve
 * yet is accepted (a receiver's DNS may come after its action, in a closed
 * network); each delivery resolves and checks it again, and one that cannot
 * fails its try, is retried and shows in the action's `is_failing`. Null
 * when it may be used.
 */
export async function targetProblem(text: string, allowPrivate: boolean): Promise<string | null> {
  const syntax = urlProblem(text);
  if (syntax) return syntax;
  if (allowPrivate) return null;
  const host = hostOf(new URL(text));
  let addresses: LookupAddress[];
  try {
    addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookupAll(host);
  } catch {
    return null;
  }
  for (const { address } of addresses) {
    const range = privateRange(address);
    if (range) return refusal(host, address, range);
  }
  return null;
}

function lookupAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) =>
    dnsLookup(host, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );
}

/**
 * A DNS lookup for outgoing deliveries that refuses private addresses: the
 * address checked is the one connected to, so a name that resolves to a
 * public address when the action is saved and to a private one later (DNS
 * rebinding) is still refused.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as LookupAddress[];
      if (!allowPrivate) {
        for (const { address } of list) {
          const range = privateRange(address);
          if (range) return callback(new Error(refusal(hostname, address, range)), '', 0);
        }
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}

/** A literal-address target (no lookup happens for it) checked before connecting. */
export function literalProblem(text: string, allowPrivate: boolean): string | null {
  if (allowPrivate) return null;
  const host = hostOf(new URL(text));
  if (!isIP(host)) return null;
  const range = privateRange(host);
  return range ? refusal(host, host, range) : null;
}
