import jsep, { type Expression } from 'jsep';
import RE2 from 're2';

/**
 * The `if` expressions of environment policies: `${{ … }}` over `flow.name`,
 * `flow.tags.<key>`, `artifact.name` and `artifact.fingerprint`, with
 * `== != < > <= >=`, `and`, `or`, `not`, `in`, `exists(x)` and
 * `matches(x, "regex")`. Parsed by jsep into a syntax tree that is checked
 * here and evaluated by walking it: nothing is ever run as code. Patterns run
 * on RE2 (linear time: no backreferences or lookaround).
 */

jsep.addBinaryOp('or', 1);
jsep.addBinaryOp('and', 2);
jsep.addBinaryOp('in', 7);
jsep.addUnaryOp('not');

const COMPARISONS = ['==', '!=', '<', '>', '<=', '>=', 'in'];
const ROOTS = { flow: ['name', 'tags'], artifact: ['name', 'fingerprint'] } as const;
const FUNCTIONS = { exists: 1, matches: 2 } as const;

/** What an expression is evaluated against. */
export interface ExpressionContext {
  flow: { name: string; tags: Record<string, string> } | null;
  artifact: { name: string; fingerprint: string };
}

export class ExpressionError extends Error {}

/** A checked expression, ready to evaluate. */
export interface PolicyExpression {
  source: string;
  evaluate(context: ExpressionContext): boolean;
}

const WRAPPED = /^\$\{\{([\s\S]*)\}\}$/;

/** Parses `${{ … }}` (or a bare expression); throws ExpressionError naming the problem. */
export function parseExpression(source: string): PolicyExpression {
  const inner = WRAPPED.exec(source.trim())?.[1] ?? source;
  let tree: Expression;
  try {
    tree = jsep(inner);
  } catch (error) {
    throw new ExpressionError((error as Error).message);
  }
  check(tree);
  return { source, evaluate: (context) => truthy(evaluate(tree, context)) };
}

function check(node: Expression): void {
  switch (node.type) {
    case 'Literal':
      return;
    case 'ArrayExpression':
      return (node.elements as Expression[]).forEach(check);
    case 'UnaryExpression':
      if (node.operator !== 'not')
        throw new ExpressionError(`unsupported operator '${String(node.operator)}'`);
      return check(node.argument as Expression);
    case 'BinaryExpression': {
      const op = node.operator as string;
      if (op !== 'and' && op !== 'or' && !COMPARISONS.includes(op))
        throw new ExpressionError(`unsupported operator '${op}'; use ==, !=, <, >, <=, >=, in, and, or, not`);
      check(node.left as Expression);
      return check(node.right as Expression);
    }
    case 'Identifier':
    case 'MemberExpression':
      return void path(node);
    case 'CallExpression': {
      const callee = node.callee as Expression;
      const name = callee.type === 'Identifier' ? (callee.name as string) : '';
      const arity = FUNCTIONS[name as keyof typeof FUNCTIONS];
      if (arity === undefined) throw new ExpressionError('only exists() and matches() can be called');
      const args = node.arguments as Expression[];
      if (args.length !== arity) throw new ExpressionError(`${name}() takes ${arity} argument(s)`);
      args.forEach(check);
      if (name === 'matches') {
        const pattern = args[1];
        if (pattern.type !== 'Literal' || typeof pattern.value !== 'string')
          throw new ExpressionError('matches() takes a string literal pattern');
        try {
          new RegExp(pattern.value);
        } catch {
          throw new ExpressionError(`matches(): invalid regular expression ${JSON.stringify(pattern.value)}`);
        }
        try {
          patternFor(pattern.value);
        } catch (error) {
          throw new ExpressionError(
            `matches(): ${JSON.stringify(pattern.value)} is not a supported regular expression (RE2 syntax: no backreferences or lookaround): ${(error as Error).message}`,
          );
        }
      }
      return;
    }
    default:
      throw new ExpressionError(`unsupported syntax (${node.type})`);
  }
}

/** `flow.tags.team` → ['flow', 'tags', 'team']; only the documented variables. */
function path(node: Expression): string[] {
  const parts: string[] = [];
  let at: Expression = node;
  while (at.type === 'MemberExpression') {
    const property = at.property as Expression;
    if (at.computed) {
      if (property.type !== 'Literal' || typeof property.value !== 'string')
        throw new ExpressionError('use a string in brackets: flow.tags["key"]');
      parts.unshift(property.value);
    } else parts.unshift(property.name as string);
    at = at.object as Expression;
  }
  if (at.type !== 'Identifier') throw new ExpressionError(`unsupported syntax (${at.type})`);
  parts.unshift(at.name as string);
  const [root, field, key] = parts;
  const fields = ROOTS[root as keyof typeof ROOTS] as readonly string[] | undefined;
  const known =
    fields !== undefined &&
    (parts.length === 1 ||
      (fields.includes(field) && (field === 'tags' ? parts.length <= 3 : parts.length === 2) && key !== ''));
  if (!known)
    throw new ExpressionError(
      `unknown variable '${parts.join('.')}'; known: flow.name, flow.tags.<key>, artifact.name, artifact.fingerprint`,
    );
  return parts;
}

function evaluate(node: Expression, context: ExpressionContext): unknown {
  switch (node.type) {
    case 'Literal':
      return node.value;
    case 'ArrayExpression':
      return (node.elements as Expression[]).map((e) => evaluate(e, context));
    case 'UnaryExpression':
      return !truthy(evaluate(node.argument as Expression, context));
    case 'BinaryExpression': {
      const op = node.operator as string;
      if (op === 'and')
        return (
          truthy(evaluate(node.left as Expression, context)) &&
          truthy(evaluate(node.right as Expression, context))
        );
      if (op === 'or')
        return (
          truthy(evaluate(node.left as Expression, context)) ||
          truthy(evaluate(node.right as Expression, context))
        );
      return compare(
        op,
        evaluate(node.left as Expression, context),
        evaluate(node.right as Expression, context),
      );
    }
    case 'Identifier':
    case 'MemberExpression':
      return path(node).reduce<unknown>(
        (value, part) =>
          value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined,
        context,
      );
    case 'CallExpression': {
      const [first, second] = (node.arguments as Expression[]).map((a) => evaluate(a, context));
      if ((node.callee as Expression).name === 'exists') return first !== undefined && first !== null;
      return typeof first === 'string' && patternFor(second as string).test(first);
    }
    default:
      return undefined;
  }
}

const patterns = new Map<string, RE2>();
const PATTERNS_KEPT = 256;

/** The pattern compiled on RE2, kept for the next evaluation. */
function patternFor(source: string): RE2 {
  let pattern = patterns.get(source);
  if (!pattern) {
    pattern = new RE2(source);
    if (patterns.size >= PATTERNS_KEPT) patterns.delete(patterns.keys().next().value!);
    patterns.set(source, pattern);
  }
  return pattern;
}

function compare(op: string, left: unknown, right: unknown): boolean {
  switch (op) {
    case '==':
      return left === right;
    case '!=':
      return left !== right;
    case 'in':
      return Array.isArray(right)
        ? right.includes(left)
        : typeof right === 'string' && typeof left === 'string' && right.includes(left);
  }
  const comparable =
    (typeof left === 'number' && typeof right === 'number') ||
    (typeof left === 'string' && typeof right === 'string');
  if (!comparable) return false;
  const [a, b] = [left as number | string, right as number | string];
  return op === '<' ? a < b : op === '>' ? a > b : op === '<=' ? a <= b : a >= b;
}

const truthy = (value: unknown) =>
  value !== undefined && value !== null && value !== false && value !== '' && value !== 0;
