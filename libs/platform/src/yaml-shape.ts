/**
 * A YAML document's shape measured from its text in one pass, before any
 * parser sees it: an upper bound on its nodes and on how deeply its
 * collections nest, counting block collections (each indentation level, and
 * each compact `- `, `? ` and `key: ` opened on one line, as in `- - - x`)
 * and flow collections (`[`, `{`) together, and whether a complex key (`?`)
 * holds another. The yaml parser recurses once per level (a thousand levels
 * overflow its stack, and a second such parse can abort the process), and a
 * key nested in a key is stringified once per level it is nested in.
 * Over-counting is safe; quoted scalars, comments and block scalars' lines
 * are skipped so that their text does not count as structure.
 */
export interface YamlShapeLimits {
  maxNodes: number;
  /** Collections open inside one another, block and flow together. */
  maxDepth: number;
}

export type YamlShapeExcess = 'nodes' | 'depth' | 'nested-complex-key';

interface Level {
  column: number;
  kind: 'entry' | 'key' | 'complex-key';
}

const NEWLINE = 10;
const RETURN = 13;
const SPACE = 32;
const TAB = 9;
const HASH = 35;
const DASH = 45;
const QUESTION = 63;
const COLON = 58;
const COMMA = 44;
const DOUBLE = 34;
const BACKSLASH = 92;
const SINGLE = 39;
const AMPERSAND = 38;
const BANG = 33;
const PIPE = 124;
const GREATER = 62;
const DOT = 46;
const STAR = 42;
const OPEN = new Set([91, 123]); // [ {
const CLOSE = new Set([93, 125]); // ] }

const CLOSED = 'closed';
/** Where a plain scalar of a block line ends: `: ` (a key), ` #` (a comment), or the line. */
const PLAIN_END = /:(?=[ \t\r\n]|$)|[ \t]#|\n/g;

/** Whether the quote at `at` is escaped: an odd run of backslashes before it (after `from`). */
function escaped(text: string, at: number, from: number): boolean {
  let backslashes = 0;
  while (at - backslashes - 1 > from && text.charCodeAt(at - backslashes - 1) === BACKSLASH) backslashes++;
  return backslashes % 2 === 1;
}

const isBlank = (c: number) => c === SPACE || c === TAB || c === RETURN;
const endsToken = (c: number) => Number.isNaN(c) || c === NEWLINE || isBlank(c);

class ShapeScanner {
  private i = 0;
  private nodes = 1;
  private flow = 0;
  private readonly levels: Level[] = [];
  private complexKeys = 0;
  private lineStart = 0;
  private cachedLineEnd = -1;
  /** In flow: after `[`, `{`, `,`, `:` or `?`, where a quote starts a quoted scalar (elsewhere it is part of a plain one). */
  private flowBoundary = true;
  /** The indentation of a block scalar's lines being skipped (-1: the next non-empty line sets it). */
  private blockScalar?: { above: number; indent: number };

  constructor(
    private readonly text: string,
    private readonly limits: YamlShapeLimits,
  ) {}

  run(): YamlShapeExcess | undefined {
    while (this.i < this.text.length) {
      let excess = this.flow > 0 ? this.flowUntilLineEnd() : this.line();
      if (excess === CLOSED) excess = this.tokens();
      if (excess) return excess;
    }
    return undefined;
  }

  private at(offset = 0): number {
    return this.text.charCodeAt(this.i + offset);
  }

  private newline(): YamlShapeExcess | undefined {
    this.i++;
    this.lineStart = this.i;
    return ++this.nodes > this.limits.maxNodes ? 'nodes' : undefined;
  }

  private skipToLineEnd(): void {
    const end = this.text.indexOf('\n', this.i);
    this.i = end < 0 ? this.text.length : end;
  }

  /** One line in block context, from its first character up to and including its line break. */
  private line(): YamlShapeExcess | undefined {
    const start = this.i;
    while (this.at() === SPACE) this.i++;
    const indent = this.i - start;
    while (isBlank(this.at())) this.i++;
    const first = this.at();
    if (Number.isNaN(first)) return undefined;
    if (first === NEWLINE) return this.newline();
    if (this.blockScalar) {
      const scalar = this.blockScalar;
      if (scalar.indent < 0 && indent > scalar.above) scalar.indent = indent;
      if (scalar.indent >= 0 && indent >= scalar.indent) {
        this.skipToLineEnd();
        return this.at() === NEWLINE ? this.newline() : undefined;
      }
      this.blockScalar = undefined;
    }
    if (first === HASH) {
      this.skipToLineEnd();
      return this.at() === NEWLINE ? this.newline() : undefined;
    }
    this.closeLevelsAt(indent, first === DASH && endsToken(this.at(1)));
    return this.tokens();
  }

  /** Levels at or right of this line's indentation are closed; a `- ` under a key at its column is the key's value. */
  private closeLevelsAt(indent: number, entry: boolean): void {
    for (;;) {
      const top = this.levels[this.levels.length - 1];
      if (!top || top.column < indent) return;
      if (top.column === indent && entry && top.kind === 'key') return;
      this.levels.pop();
      if (top.kind === 'complex-key') this.complexKeys--;
    }
  }

  private open(kind: Level['kind'], column: number): YamlShapeExcess | undefined {
    if (kind === 'complex-key' && this.complexKeys++ > 0) return 'nested-complex-key';
    this.levels.push({ column, kind });
    if (++this.nodes > this.limits.maxNodes) return 'nodes';
    return this.levels.length + this.flow > this.limits.maxDepth ? 'depth' : undefined;
  }

  /** The tokens of a block line: indicators opening levels, properties, scalars, the start of a flow collection. */
  private tokens(): YamlShapeExcess | undefined {
    for (;;) {
      while (isBlank(this.at())) this.i++;
      const c = this.at();
      if (Number.isNaN(c)) return undefined;
      if (c === NEWLINE) return this.newline();
      if (c === HASH) {
        this.skipToLineEnd();
        continue;
      }
      const column = this.i - this.lineStart;
      if ((c === DASH || c === QUESTION || c === COLON) && endsToken(this.at(1))) {
        const kind = c === DASH ? 'entry' : c === QUESTION ? 'complex-key' : 'key';
        const excess = this.open(kind, column);
        if (excess) return excess;
        this.i++;
      } else if (
        column === 0 &&
        (c === DASH || c === DOT) &&
        this.text.startsWith(c === DASH ? '---' : '...', this.i)
      ) {
        this.i += 3;
      } else if (c === AMPERSAND || c === BANG || c === STAR) {
        while (!endsToken(this.at())) this.i++;
      } else if (OPEN.has(c)) {
        const flow = this.flowUntilLineEnd();
        if (flow !== CLOSED) return flow;
      } else if (c === PIPE || c === GREATER) {
        const top = this.levels[this.levels.length - 1];
        this.blockScalar = { above: top ? top.column : -1, indent: -1 };
        this.skipToLineEnd();
      } else if (c === DOUBLE || c === SINGLE) {
        this.quoted(c);
        if (this.at() === COLON && endsToken(this.at(1))) {
          const opened = this.open('key', column);
          if (opened) return opened;
          this.i++;
        }
      } else {
        const excess = this.plain(column);
        if (excess) return excess;
      }
    }
  }

  /** A plain scalar up to the line's end, a comment, or `: ` (then it was a key). */
  private plain(column: number): YamlShapeExcess | undefined {
    PLAIN_END.lastIndex = this.i;
    const end = PLAIN_END.exec(this.text);
    if (!end || end[0] === '\n') {
      this.i = end ? end.index : this.text.length;
      return undefined;
    }
    if (end[0].endsWith('#')) {
      this.i = end.index + 1;
      return undefined;
    }
    this.i = end.index + 1;
    return this.open('key', column);
  }

  /**
   * A quoted scalar, skipped to its end on this line only: the lines a quoted
   * scalar continues on are measured as if they were structure (over-counting),
   * since a quote that begins a line may instead continue a plain scalar.
   */
  private quoted(quote: number): void {
    const mark = quote === DOUBLE ? '"' : "'";
    const lineEnd = this.lineEnd();
    let from = this.i + 1;
    for (;;) {
      const at = this.text.indexOf(mark, from);
      if (at < 0 || at > lineEnd) {
        this.i = lineEnd;
        return;
      }
      from = at + 1;
      if (quote === SINGLE && this.text.charCodeAt(from) === SINGLE) from++;
      else if (quote === SINGLE || !escaped(this.text, at, this.i)) {
        this.i = from;
        return;
      }
    }
  }

  /** Where this line ends (its line break, or the text's end); cached, as the scan only moves forward. */
  private lineEnd(): number {
    if (this.cachedLineEnd < this.i) {
      const end = this.text.indexOf('\n', this.i);
      this.cachedLineEnd = end < 0 ? this.text.length : end;
    }
    return this.cachedLineEnd;
  }

  /** Flow context up to the end of the line, or of the flow collection (then the line's tokens go on: `: ` makes it a key). */
  private flowUntilLineEnd(): YamlShapeExcess | typeof CLOSED | undefined {
    for (;;) {
      const c = this.at();
      if (Number.isNaN(c)) return undefined;
      if (c === NEWLINE) return this.newline();
      if (OPEN.has(c)) {
        this.flow++;
        this.flowBoundary = true;
        if (++this.nodes > this.limits.maxNodes) return 'nodes';
        if (this.levels.length + this.flow > this.limits.maxDepth) return 'depth';
      } else if (CLOSE.has(c)) {
        this.flow = Math.max(0, this.flow - 1);
        this.flowBoundary = false;
        if (this.flow === 0) {
          this.i++;
          return CLOSED;
        }
      } else if (c === COMMA || c === COLON || c === QUESTION) {
        // in flow, `"k":v` needs no space, and `[k: v]` is a mapping of its own
        this.nodes += c === COLON ? 2 : 1;
        if (this.nodes > this.limits.maxNodes) return 'nodes';
        this.flowBoundary = true;
      } else if ((c === DOUBLE || c === SINGLE) && this.flowBoundary) {
        this.quoted(c);
        this.flowBoundary = false;
        continue;
      } else if (c === HASH && (this.i === 0 || endsToken(this.text.charCodeAt(this.i - 1)))) {
        this.skipToLineEnd();
        continue;
      } else if (!isBlank(c)) this.flowBoundary = false;
      this.i++;
    }
  }
}

/** What of the limits the text goes past, if any: linear in the text, before any parser sees it. */
export function yamlShapeExcess(text: string, limits: YamlShapeLimits): YamlShapeExcess | undefined {
  return new ShapeScanner(text, limits).run();
}
