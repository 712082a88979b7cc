// The bench's statistics, in one place: medians, contiguous blocks, and the bootstrap intervals
// every section reports (bench/run.mjs, bench/knockouts.mjs).

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** The p-th percentile (0..1) of `xs`, nearest rank; NaN for none. */
export function percentile(xs, p) {
  if (xs.length === 0) return NaN;
  const s = Float64Array.from(xs).sort();
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
}

/** Which of `blocks` contiguous, near-equal blocks item `i` of `n` falls in. */
export const blockOf = (i, n, blocks) => Math.floor((i * blocks) / n);

/**
 * The bootstrap behind every interval: `statistic(draw)` over 2000 two-stage resamples (fixed
 * seed) of the indices 0..n-1, which ran in `clusters` contiguous blocks (generations of worker
 * processes, or processes of the in-process section): blocks first (a drawn block keeps its
 * rounds paired across the rows), then rounds within each drawn block. Two processes of the same
 * code settle on different JIT and heap states and can differ by more than any round's noise;
 * resampling rounds alone would treat the few processes that ran as the only ones there could
 * be, and give too narrow an interval. Returns the 2.5 % and 97.5 % quantiles.
 */
function bootstrap(n, clusters, statistic) {
  let seed = 12345;
  const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  clusters = Math.max(1, Math.min(clusters, n));
  const members = Array.from({ length: clusters }, () => []);
  for (let i = 0; i < n; i++) members[blockOf(i, n, clusters)].push(i);
  const values = [];
  const draw = [];
  for (let k = 0; k < 2000; k++) {
    draw.length = 0;
    for (let c = 0; c < clusters; c++) {
      const rows = members[Math.floor(rnd() * clusters)];
      for (let m = 0; m < rows.length; m++) draw.push(rows[Math.floor(rnd() * rows.length)]);
    }
    values.push(statistic(draw));
  }
  values.sort((a, b) => a - b);
  return [values[Math.floor(0.025 * values.length)], values[Math.floor(0.975 * values.length)]];
}

/**
 * 95 % interval of median(x - bx) / median(y - by): how much a ratio of overheads can be trusted
 * when every round is noisy. `bx` and `by` are the baselines of each (the same one for two rows
 * of one scenario).
 */
export function ratioInterval(x, y, bx, by = bx, clusters = 1) {
  return bootstrap(
    bx.length,
    clusters,
    (draw) => median(draw.map((j) => x[j] - bx[j])) / median(draw.map((j) => y[j] - by[j])),
  );
}

/** 95 % interval of median(x - y): what one row costs over another of the same rounds. */
export function differenceInterval(x, y, clusters = 1) {
  return bootstrap(x.length, clusters, (draw) => median(draw.map((j) => x[j] - y[j])));
}

/**
 * 95 % interval of 1 + median(x - y) / median(y - by): x's overhead over y's as a ratio, read off
 * the paired differences of x and y themselves (bench/compare.mjs). Their baseline enters only
 * the scale, so its noise barely moves the ratio, where the ratio of two overheads over it
 * (ratioInterval) carries that noise twice.
 */
export function changeInterval(x, y, by, clusters = 1) {
  return bootstrap(
    x.length,
    clusters,
    (draw) => 1 + median(draw.map((j) => x[j] - y[j])) / median(draw.map((j) => y[j] - by[j])),
  );
}
