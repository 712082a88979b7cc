// The bench's verdict words, in one place: a target's (PASS, FAIL, UNCLEAR) and a change's
// between two builds (REGRESSION, SAME, FASTER, UNCLEAR). Both are read off a 95 % interval,
// never off a point figure alone; rows printed for comparison only get no word at all.

/** PASS when the whole interval is within the limit, FAIL when none of it is, else UNCLEAR. */
export function verdictOf([low, high], limit) {
  if (high <= limit) return 'PASS';
  if (low > limit) return 'FAIL';
  return 'UNCLEAR';
}

/** How far from 1 a ratio of two builds may be and still read SAME: ±5 %. */
export const CHANGE_TOLERANCE = 0.05;

/**
 * The change from build A to build B, from the interval of B / A: REGRESSION when the whole
 * interval lies above 1 + 5 %, FASTER when it lies below 1 − 5 %, SAME when it lies within ±5 %,
 * UNCLEAR otherwise (the run could not tell: more processes narrow the interval).
 */
export function changeVerdict([low, high], tolerance = CHANGE_TOLERANCE) {
  if (low > 1 + tolerance) return 'REGRESSION';
  if (high < 1 - tolerance) return 'FASTER';
  if (low >= 1 - tolerance && high <= 1 + tolerance) return 'SAME';
  return 'UNCLEAR';
}

/** One reading for several scenarios: any REGRESSION, else any UNCLEAR, else any FASTER, else SAME. */
export function overallChange(readings) {
  for (const word of ['REGRESSION', 'UNCLEAR', 'FASTER']) if (readings.includes(word)) return word;
  return 'SAME';
}
