import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import { type YamlShapeExcess, yamlShapeExcess } from './yaml-shape';

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
  /** Collections open inside one another, block (indented or compact, `- - x`) and flow (`[`, `{`) together. */
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

/**
 * Why a YAML document is refused: `syntax` (not YAML, or a key repeated) or a
 * limit (413 for its size, 400 for its shape or its parse's budgets, 503 when
 * no thread could parse it).
 */
export class YamlRefusal extends Error {
  constructor(
    readonly kind: 'syntax' | 'limit',
    readonly status: 400 | 413 | 503,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The parser overflowed its stack (a shape the measurement missed). Past one,
 * the isolate's regular expressions can abort the whole process on their next
 * compilation (V8's "RegExpCompiler Allocation failed"), so the thread that
 * met it is never used again.
 */
export class StackOverflowRefusal extends YamlRefusal {
  constructor() {
    super('limit', 400, 'nests too deeply for the parser');
  }
}

const EXCESS_MESSAGES: Record<YamlShapeExcess, (limits: YamlLimits) => string> = {
  nodes: (limits) => `has more than ${limits.maxNodes} nodes (lines, items and keys)`,
  depth: (limits) =>
    `nests more than ${limits.maxDepth} collections (block and flow together, compact ones such as "- - x" included)`,
  'nested-complex-key': () => 'nests a complex key ("? " or a collection as a key) inside another',
};

const refusalFor = (excess: YamlShapeExcess, limits: YamlLimits) =>
  new YamlRefusal('limit', 400, EXCESS_MESSAGES[excess](limits));

/** Longest part of a tenant's text quoted back in a refusal: a key, or the parser's first line (which may quote the text). */
const QUOTED_CHARS = 80;
const PARSER_LINE_CHARS = 200;

const quoted = (text: string, max = QUOTED_CHARS) =>
  text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;

/**
 * The cheap first gate, on the event loop: the document's size, and its shape
 * measured from its text in one pass (yaml-shape.ts). Throws YamlRefusal;
 * answers the text.
 */
export function checkYamlText(source: string | Buffer, limits: YamlLimits = YAML_LIMITS): string {
  const bytes = typeof source === 'string' ? Buffer.byteLength(source, 'utf8') : source.length;
  if (bytes > limits.maxBytes)
    throw new YamlRefusal(
      'limit',
      413,
      `is larger than the ${limits.maxBytes / 1024} KiB YAML documents may be`,
    );
  const text = typeof source === 'string' ? source : source.toString('utf8');
  if (Number.isFinite(limits.maxNodes) || Number.isFinite(limits.maxDepth)) {
    const excess = yamlShapeExcess(text, limits);
    if (excess) throw refusalFor(excess, limits);
  }
  return text;
}

/**
 * Parses a tenant's YAML document within the limits; throws YamlRefusal. A key
 * repeated in a mapping is refused as the parser would, found with one set per
 * mapping instead of the parser's pairwise comparison.
 */
export function parseBoundedYaml(source: string | Buffer, limits: YamlLimits = YAML_LIMITS): unknown {
  return parseCheckedYaml(checkYamlText(source, limits), limits);
}

/**
 * The parse itself, of a text checkYamlText passed: on the event loop for a
 * stored version, in a thread of the YAML pool for a tenant's upload
 * (yaml-parsing.ts). A stack overflow is refused as `StackOverflowRefusal`.
 */
export function parseCheckedYaml(text: string, limits: YamlLimits): unknown {
  const lines = new LineCounter();
  let document;
  try {
    document = parseDocument(text, { uniqueKeys: false, lineCounter: lines });
  } catch (error) {
    throw nestedTooDeeply(error);
  }
  const [error] = document.errors;
  if (error && /call stack/i.test(error.message)) throw new StackOverflowRefusal();
  if (error) throw new YamlRefusal('syntax', 400, quoted(error.message.split('\n')[0], PARSER_LINE_CHARS));
  const { repeated, nodes, aliases, nestedKey } = walk(document.contents);
  if (nestedKey) throw refusalFor('nested-complex-key', limits);
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
      `Map keys must be unique: "${quoted(repeated.key)}" at line ${line}, column ${col}`,
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
  return error instanceof RangeError ? new StackOverflowRefusal() : error;
}

/**
 * The document's nodes as parsed (the count from the text bounds the parser's
 * work; this one is exact) and the first scalar key repeated in a mapping,
 * walked without recursion.
 */
function walk(root: unknown): {
  nodes: number;
  aliases: number;
  repeated?: { key: string; offset: number };
  nestedKey?: boolean;
} {
  // Each node with whether it is inside a collection used as a key.
  const pending: [unknown, boolean][] = [[root, false]];
  let nodes = 0;
  let aliases = 0;
  while (pending.length) {
    const [node, inKey] = pending.pop()!;
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
        } else if (pair.key !== null) {
          // toJS writes a collection key as text, once per key it is nested in
          if (inKey && (isMap(pair.key) || isSeq(pair.key))) return { nodes, aliases, nestedKey: true };
          pending.push([pair.key, true]);
        }
        pending.push([pair.value, inKey]);
      }
    } else if (isSeq(node)) {
      nodes++;
      for (const item of node.items) pending.push([item, inKey]);
    } else if (isPair(node)) pending.push([node.key, true], [node.value, inKey]);
    else if (isScalar(node)) nodes++;
    else if (isAlias(node)) {
      nodes++;
      aliases++;
    }
  }
  return { nodes, aliases };
}
