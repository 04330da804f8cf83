// Small statistics over samples: medians and nearest-rank percentiles.

export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export function median(values) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** `list` rotated left by `round` places: each round starts with a different candidate. */
export function rotate(list, round) {
  const at = round % list.length;
  return [...list.slice(at), ...list.slice(0, at)];
}
