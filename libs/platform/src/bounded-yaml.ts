import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';

/**
 * Limits on a tenant's YAML document (environment policies, flow templates:
 * small documents). The yaml parser costs several microseconds per node on
 * the event loop, so a document is measured from its text before it is
 * parsed (docs/adr/0001-tenant-programs-bounded.md).
 */
export interface YamlLimits {
  /** Bytes of the document's text (refused 413 past it). */
  maxBytes: number;
  /** Nodes: counted from the text before parsing as an upper bound (line breaks, flow separators, `- `, `: `, `? ` indicators), then exactly once parsed. */
  maxNodes: number;
  /** Flow collections (`[`, `{`) open inside one another. */
  maxDepth: number;
  /** Aliases (`*name`) the document may resolve (yaml's `maxAliasCount`). */
  maxAliases: number;
}

export const YAML_LIMITS: YamlLimits = {
  maxBytes: 256 * 1024,
  maxNodes: 2000,
  maxDepth: 64,
  maxAliases: 100,
};

/**
 * For documents accepted before these limits (stored policy versions): read as
 * they were, with the parser's alias limit and the linear duplicate-key check.
 */
export const STORED_YAML: YamlLimits = {
  maxBytes: Infinity,
  maxNodes: Infinity,
  maxDepth: Infinity,
  maxAliases: 100,
};

/** Why a YAML document is refused: `syntax` (not YAML, or a key repeated) or a limit (413 for its size). */
export class YamlRefusal extends Error {
  constructor(
    readonly kind: 'syntax' | 'limit',
    readonly status: 400 | 413,
    message: string,
  ) {
    super(message);
  }
}

const NEWLINE = 10;
const SPACE = 32;
const TAB = 9;
const COMMA = 44;
const COLON = 58;
const OPEN = new Set([91, 123]); // [ {
const CLOSE = new Set([93, 125]); // ] }
const INDICATORS = new Set([45, 58, 63]); // - : ?

/** The document's nodes and flow nesting as counted from its text in one pass (over-counting is safe). */
function measure(text: string, limits: YamlLimits): YamlRefusal | undefined {
  let nodes = 1;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === NEWLINE || c === COMMA) nodes++;
    else if (OPEN.has(c)) {
      nodes++;
      if (++depth > limits.maxDepth)
        return new YamlRefusal('limit', 400, `nests more than ${limits.maxDepth} flow collections`);
    } else if (CLOSE.has(c)) depth = Math.max(0, depth - 1);
    else if (c === COLON && depth > 0)
      nodes += 2; // in flow, `"k":v` needs no space, and `[k: v]` is a mapping of its own
    else if (INDICATORS.has(c)) {
      const next = text.charCodeAt(i + 1);
      if (next === SPACE || next === TAB || next === NEWLINE || Number.isNaN(next)) nodes++;
    }
    if (nodes > limits.maxNodes)
      return new YamlRefusal('limit', 400, `has more than ${limits.maxNodes} nodes (lines, items and keys)`);
  }
  return undefined;
}

/**
 * Parses a tenant's YAML document within the limits; throws YamlRefusal. A key
 * repeated in a mapping is refused as the parser would, found with one set per
 * mapping instead of the parser's pairwise comparison.
 */
export function parseBoundedYaml(source: string | Buffer, limits: YamlLimits = YAML_LIMITS): unknown {
  const bytes = typeof source === 'string' ? Buffer.byteLength(source, 'utf8') : source.length;
  if (bytes > limits.maxBytes)
    throw new YamlRefusal(
      'limit',
      413,
      `is larger than the ${limits.maxBytes / 1024} KiB YAML documents may be`,
    );
  const text = typeof source === 'string' ? source : source.toString('utf8');
  const tooBig = measure(text, limits);
  if (tooBig) throw tooBig;
  const lines = new LineCounter();
  let document;
  try {
    document = parseDocument(text, { uniqueKeys: false, lineCounter: lines });
  } catch (error) {
    throw nestedTooDeeply(error);
  }
  const [error] = document.errors;
  if (error) throw new YamlRefusal('syntax', 400, error.message.split('\n')[0]);
  const { repeated, nodes, aliases } = walk(document.contents);
  if (nodes > limits.maxNodes)
    throw new YamlRefusal('limit', 400, `has more than ${limits.maxNodes} nodes (lines, items and keys)`);
  // The parser finds each alias's anchor by walking the document (quadratic in aliases): a new
  // document's aliases are counted in all; stored versions keep the parser's count per anchor.
  if (Number.isFinite(limits.maxNodes) && aliases > limits.maxAliases)
    throw new YamlRefusal('limit', 400, `resolves more than ${limits.maxAliases} aliases`);
  if (repeated) {
    const { line, col } = lines.linePos(repeated.offset);
    throw new YamlRefusal(
      'syntax',
      400,
      `Map keys must be unique: "${repeated.key}" at line ${line}, column ${col}`,
    );
  }
  try {
    return document.toJS({ maxAliasCount: limits.maxAliases });
  } catch (error) {
    if (error instanceof ReferenceError || /alias/i.test(String(error)))
      throw new YamlRefusal('limit', 400, `resolves more than ${limits.maxAliases} aliases`);
    throw nestedTooDeeply(error);
  }
}

function nestedTooDeeply(error: unknown): unknown {
  return error instanceof RangeError ? new YamlRefusal('limit', 400, 'nests too deeply') : error;
}

/**
 * The document's nodes as parsed (the count from the text bounds the parser's
 * work; this one is exact) and the first scalar key repeated in a mapping,
 * walked without recursion.
 */
function walk(root: unknown): { nodes: number; aliases: number; repeated?: { key: string; offset: number } } {
  const pending: unknown[] = [root];
  let nodes = 0;
  let aliases = 0;
  while (pending.length) {
    const node = pending.pop();
    if (isMap(node)) {
      nodes++;
      const seen = new Set<string>();
      for (const pair of node.items) {
        if (isScalar(pair.key)) {
          nodes++;
          const id = `${typeof pair.key.value}:${String(pair.key.value)}`;
          if (seen.has(id))
            return {
              nodes,
              aliases,
              repeated: { key: String(pair.key.value), offset: pair.key.range?.[0] ?? 0 },
            };
          seen.add(id);
        } else pending.push(pair.key);
        pending.push(pair.value);
      }
    } else if (isSeq(node)) {
      nodes++;
      pending.push(...node.items);
    } else if (isPair(node)) pending.push(node.key, node.value);
    else if (isScalar(node)) nodes++;
    else if (isAlias(node)) {
      nodes++;
      aliases++;
    }
  }
  return { nodes, aliases };
}
