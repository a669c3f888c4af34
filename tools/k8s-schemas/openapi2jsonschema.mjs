#!/usr/bin/env node
// Kubernetes JSON schemas for kubeconform, made offline from the OpenAPI
// (Swagger 2.0) document that Kubernetes ships in its source (the Go module
// k8s.io/kubernetes, api/openapi-spec/swagger.json) and from
// CustomResourceDefinition manifests (their openAPIV3Schema).
//
// It writes what kubeconform reads from `-schema-location <out>` (the layout of
// yannh/kubernetes-json-schema): <out>/v<version>-standalone-strict/<kind>[-<group>]-<version>.json,
// e.g. deployment-apps-v1.json, service-v1.json, servicemonitor-monitoring-v1.json.
//
// Like openapi2jsonschema --kubernetes --expanded --stand-alone --strict
// (instrumenta's, which the published schemas were made with) and kubeconform's
// scripts/openapi2jsonschema.py for CRDs:
//   - stand-alone: every file carries the definitions it uses (no reference
//     to another file; recursive types stay local references);
//   - strict: an object schema that lists its properties allows no others
//     (additionalProperties: false), unless it already says otherwise or
//     keeps unknown fields (x-kubernetes-preserve-unknown-fields);
//   - an optional field may be null, as the API server accepts;
//   - int-or-string fields accept a string or an integer; a resource.Quantity
//     a string or a number (`cpu: 1` is a valid quantity).
// Descriptions are left out: kubeconform validates, it does not document.
//
//   node tools/k8s-schemas/openapi2jsonschema.mjs --version 1.37.2 --out DIR \
//     --swagger swagger.json [--crd crd.yaml ...]
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

function parseArgs(argv) {
  const args = { crd: [] };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === '--crd') args.crd.push(value);
    else if (['--swagger', '--out', '--version'].includes(flag)) args[flag.slice(2)] = value;
    else throw new Error(`unknown option ${flag}`);
  }
  for (const need of ['out', 'version']) if (!args[need]) throw new Error(`--${need} is required`);
  return args;
}

const INT_OR_STRING = { oneOf: [{ type: 'string' }, { type: 'integer' }] };
const QUANTITY = { oneOf: [{ type: 'string' }, { type: 'number' }] };
const SWAGGER_REF = '#/definitions/';

/**
 * One schema, rewritten: descriptions dropped, strictness added, optional
 * properties nullable. `refs` collects the Swagger definitions it names.
 */
function convert(schema, refs, { nullable = false } = {}) {
  if (typeof schema !== 'object' || schema === null) return schema;
  if (schema.$ref) {
    const name = schema.$ref.startsWith(SWAGGER_REF) ? schema.$ref.slice(SWAGGER_REF.length) : undefined;
    if (!name) throw new Error(`unsupported reference ${schema.$ref}`);
    refs.add(name);
    const ref = { $ref: schema.$ref };
    return nullable ? { anyOf: [ref, { type: 'null' }] } : ref;
  }
  if (schema.format === 'int-or-string' || schema['x-kubernetes-int-or-string']) {
    return nullable ? { oneOf: [...INT_OR_STRING.oneOf, { type: 'null' }] } : structuredClone(INT_OR_STRING);
  }
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'description' || key === 'example' || key === 'x-kubernetes-group-version-kind') continue;
    if (key === 'properties') {
      const required = new Set(schema.required ?? []);
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, property]) => [
          name,
          convert(property, refs, { nullable: !required.has(name) }),
        ]),
      );
    } else if (key === 'patternProperties') {
      out.patternProperties = Object.fromEntries(
        Object.entries(value).map(([pattern, property]) => [pattern, convert(property, refs)]),
      );
    } else if (key === 'items') {
      out.items = Array.isArray(value) ? value.map((item) => convert(item, refs)) : convert(value, refs);
    } else if (key === 'additionalProperties' || key === 'not') {
      out[key] = convert(value, refs);
    } else if (key === 'allOf' || key === 'anyOf' || key === 'oneOf') {
      out[key] = value.map((item) => convert(item, refs));
    } else {
      out[key] = value;
    }
  }
  if (
    out.properties &&
    !('additionalProperties' in out) &&
    out['x-kubernetes-preserve-unknown-fields'] !== true
  ) {
    out.additionalProperties = false;
  }
  if (nullable && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}

/** The converted Swagger definitions (each once), and the names each one refers to. */
function convertDefinitions(definitions) {
  const converted = new Map();
  for (const [name, definition] of Object.entries(definitions)) {
    const refs = new Set();
    let schema;
    if (name === 'io.k8s.apimachinery.pkg.util.intstr.IntOrString') schema = structuredClone(INT_OR_STRING);
    else if (name === 'io.k8s.apimachinery.pkg.api.resource.Quantity') schema = structuredClone(QUANTITY);
    else schema = convert(definition, refs);
    converted.set(name, { schema, refs });
  }
  return converted;
}

/** The definitions `name` needs, transitively (itself excluded unless it is recursive). */
function closure(converted, name) {
  const seen = new Set();
  const stack = [...converted.get(name).refs];
  while (stack.length) {
    const next = stack.pop();
    if (seen.has(next)) continue;
    const entry = converted.get(next);
    if (!entry) throw new Error(`${name} refers to the missing definition ${next}`);
    seen.add(next);
    stack.push(...entry.refs);
  }
  return [...seen].sort();
}

function fileName(kind, group, version) {
  const groupPart = group ? `-${group.split('.')[0]}` : '';
  return `${kind}${groupPart}-${version}.json`.toLowerCase();
}

function standalone(root, definitionNames, converted) {
  const schema = { $schema: 'http://json-schema.org/draft-04/schema#', ...root };
  if (definitionNames.length) {
    schema.definitions = Object.fromEntries(definitionNames.map((n) => [n, converted.get(n).schema]));
  }
  return schema;
}

function fromSwagger(path, write) {
  const { definitions } = JSON.parse(readFileSync(path, 'utf8'));
  const converted = convertDefinitions(definitions);
  let count = 0;
  for (const [name, definition] of Object.entries(definitions)) {
    const kinds = definition['x-kubernetes-group-version-kind'];
    // DeleteOptions and WatchEvent are listed under every group: not resources one applies.
    if (!kinds || kinds.length !== 1) continue;
    const [{ group, kind, version }] = kinds;
    const { schema } = converted.get(name);
    const root = { ...schema, type: 'object' };
    // kind and apiVersion name exactly this resource.
    root.properties = {
      ...root.properties,
      apiVersion: { type: 'string', enum: [group ? `${group}/${version}` : version] },
      kind: { type: 'string', enum: [kind] },
    };
    write(fileName(kind, group, version), standalone(root, closure(converted, name), converted));
    count++;
  }
  return count;
}

function fromCrds(paths, write) {
  let count = 0;
  for (const path of paths) {
    for (const document of parseAllDocuments(readFileSync(path, 'utf8'))) {
      const crd = document.toJS();
      if (crd?.kind !== 'CustomResourceDefinition') continue;
      const { group, names, versions = [] } = crd.spec;
      for (const version of versions) {
        const openApi = version.schema?.openAPIV3Schema;
        if (!openApi) continue;
        const refs = new Set();
        const root = convert(openApi, refs);
        if (refs.size) throw new Error(`${path}: a CRD schema with references is not supported`);
        root.properties = {
          ...root.properties,
          apiVersion: { type: 'string', enum: [`${group}/${version.name}`] },
          kind: { type: 'string', enum: [names.kind] },
        };
        write(fileName(names.kind, group, version.name), standalone(root, [], new Map()));
        count++;
      }
    }
  }
  return count;
}

const args = parseArgs(process.argv.slice(2));
const dir = join(args.out, `v${args.version.replace(/^v/, '')}-standalone-strict`);
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const write = (name, schema) => writeFileSync(join(dir, name), JSON.stringify(schema));
const core = args.swagger ? fromSwagger(args.swagger, write) : 0;
const custom = fromCrds(args.crd, write);
console.log(`${core} Kubernetes and ${custom} custom resource schemas → ${dir}`);
