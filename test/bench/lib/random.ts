// A fixed sequence of numbers, so that every run of a benchmark builds the same data.

/** A seeded linear congruential generator: numbers in [0, 1). */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}
