/** A 64-hex fingerprint for the number `n`. */
export const fingerprintOf = (n: number) => n.toString(16).padStart(64, '0');

/** A K8S report's pods: `podsEach` pods of image `svc-<f>` for each fingerprint number `f`. */
export const podsOf = (fingerprints: number[], podsEach = 1) =>
  fingerprints.flatMap((f) =>
    Array.from({ length: podsEach }, (_, i) => ({
      creationTimestamp: 1_790_000_000,
      digests: { [`registry.local/svc-${f}:1`]: `sha256:${fingerprintOf(f)}` },
      namespace: 'bench',
      podName: podsEach === 1 ? `svc-${f}` : `svc-${f}-${i}`,
    })),
  );
