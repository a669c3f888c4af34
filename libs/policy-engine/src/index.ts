/** What `#des/policy-engine` publishes to the other libraries, the apps and the tests; the rest is its own. */
export { OpaCompiler, opaPath } from './opa-compiler';
export { PolicyError, type PolicyErrorKind } from './policy-error';
export { PolicyEvaluator } from './wasm-evaluator';
