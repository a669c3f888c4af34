export * from './policy-error';
export * from './opa-compiler';
export * from './wasm-evaluator';
