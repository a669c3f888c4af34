/**
 * What `npm run cli -- verify-bundle <file> [--key <vkey>]` runs: the very
 * verifier a bundle carries as verify.mjs, with the same output and exit code.
 */
export async function runBundleVerifier(args: string[]): Promise<number> {
  const verifier = await import('./bundle-verifier.mjs');
  return verifier.runVerifier(args);
}
