import type { OpenAPIObject } from '@nestjs/swagger';
import { allowedMethods } from './openapi-exact';

type KnownPath = ReturnType<typeof allowedMethods>[number];

/**
 * The document's paths, looked up by a request's path: the candidates are
 * only those whose first segment after the prefix could match, in the
 * document's order of specificity (the most specific path decides).
 */
export class KnownPaths {
  private readonly byHead = new Map<string, KnownPath[]>();
  private readonly anyHead: KnownPath[];

  constructor(
    document: OpenAPIObject,
    private readonly prefix: string,
  ) {
    const all = allowedMethods(document);
    const headOf = (known: KnownPath) => head(known.path, prefix);
    const anyHead = (known: KnownPath) => headOf(known).startsWith('{');
    this.anyHead = all.filter(anyHead);
    // A head's candidates: its own paths and those of any head, in the document's order.
    for (const key of new Set(all.filter((k) => !anyHead(k)).map(headOf)))
      this.byHead.set(
        key,
        all.filter((k) => anyHead(k) || headOf(k) === key),
      );
  }

  /** The most specific known path `path` matches, if any. */
  match(path: string): KnownPath | undefined {
    const candidates = this.byHead.get(head(path, this.prefix)) ?? this.anyHead;
    return candidates.find((k) => k.pattern.test(path));
  }
}

/** The first segment of `path` after `prefix` (or its first segment when it is not under it). */
function head(path: string, prefix: string): string {
  const rest = path.startsWith(prefix) ? path.slice(prefix.length) : path;
  const start = rest.startsWith('/') ? 1 : 0;
  const end = rest.indexOf('/', start);
  return end < 0 ? rest.slice(start) : rest.slice(start, end);
}
