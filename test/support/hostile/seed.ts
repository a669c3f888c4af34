/**
 * The harness's randomness: one seed per run, printed, replayable with
 * DES_HOSTILE_SEED, rotated otherwise (so each CI run tries other inputs).
 */
export function hostileSeed(env: NodeJS.ProcessEnv = process.env): number {
  const given = env.DES_HOSTILE_SEED;
  if (given !== undefined && given !== '') {
    const seed = Number(given);
    if (!Number.isInteger(seed) || seed < 0)
      throw new Error(`DES_HOSTILE_SEED must be a whole number, not ${given}`);
    return seed >>> 0;
  }
  // Rotated: a new seed each run (the time), printed so a failing run can be replayed.
  return (Date.now() ^ (process.pid << 16)) >>> 0;
}

export interface Random {
  /** [0, 1) */
  next(): number;
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

/** mulberry32: small, fast, deterministic from its seed. */
export function random(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: (items) => items[int(0, items.length - 1)],
    chance: (p) => next() < p,
  };
}

/** A sub-seed for one route's n-th round: the same route and round give the same inputs for a seed. */
export function subSeed(seed: number, ...parts: (string | number)[]): number {
  let h = seed >>> 0 || 1;
  for (const ch of parts.join('\u0000')) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return h;
}
