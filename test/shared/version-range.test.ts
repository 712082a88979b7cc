import { describe, expect, it } from 'vitest';
import { SDK_V1_RANGE, SDK_V2_RANGE } from '../../src/instrumentation.js';
import { inRange } from '../../src/shared/version-range.js';

describe('inRange', () => {
  it.each([
    ['1.10.2', SDK_V1_RANGE, true],
    ['1.32.2', SDK_V1_RANGE, true],
    ['1.10.1', SDK_V1_RANGE, false],
    ['2.0.0', SDK_V1_RANGE, false],
    ['2.4.0', SDK_V2_RANGE, true],
    ['3.0.0', SDK_V2_RANGE, false],
    ['1.99.0', SDK_V2_RANGE, false],
    ['2.0.0-beta.1', SDK_V2_RANGE, false],
    ['2.4.0+build.7', SDK_V2_RANGE, true],
    ['1.2.3', '=1.2.3', true],
    ['1.2.4', '>1.2.3 <=1.2.4', true],
    ['not a version', SDK_V1_RANGE, false],
    ['1.32.2', 'not a range', false],
  ])('%s in %s: %s', (version, range, expected) => {
    expect(inRange(version, range)).toBe(expected);
  });
});
