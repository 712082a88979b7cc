/**
 * Which thread the register entry refuses to start on: Node's module loader thread only. The
 * real thread under Node.js 20 is run in register.test.ts; the facts of the other lines here.
 */
import { describe, expect, it } from 'vitest';
import { onLoaderThread } from '../../src/register/loader-thread.js';

describe('onLoaderThread', () => {
  it('the main thread is never the loader thread', () => {
    expect(onLoaderThread({ isMainThread: true, parentPort: null })).toBe(false);
    expect(onLoaderThread({ isMainThread: true, parentPort: null, isInternalThread: false })).toBe(
      false,
    );
  });

  it('Node.js 22.14 and later: isInternalThread decides', () => {
    expect(onLoaderThread({ isMainThread: false, parentPort: null, isInternalThread: true })).toBe(
      true,
    );
    // An application Worker: not internal, and it has a parentPort.
    expect(onLoaderThread({ isMainThread: false, parentPort: {}, isInternalThread: false })).toBe(
      false,
    );
  });

  it('Node.js 20: the worker without a parentPort is the loader thread, a Worker of the app is not', () => {
    expect(onLoaderThread({ isMainThread: false, parentPort: null })).toBe(true);
    expect(onLoaderThread({ isMainThread: false, parentPort: {} })).toBe(false);
  });

  it('in this process (the main thread): false', () => {
    expect(onLoaderThread()).toBe(false);
  });
});
