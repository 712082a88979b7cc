import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MissingFrameworkError, requireFramework } from '../../src/frameworks/peer.js';

const cwd = process.cwd();
afterEach(() => process.chdir(cwd));

describe('requireFramework', () => {
  it('finds a framework installed above the working directory', () => {
    const project = mkdtempSync(join(tmpdir(), 'omcp-peer-'));
    mkdirSync(join(project, 'node_modules', '@scope', 'fw'), { recursive: true });
    writeFileSync(join(project, 'node_modules', '@scope', 'fw', 'package.json'), '{}');
    mkdirSync(join(project, 'src'));
    process.chdir(join(project, 'src'));
    expect(() => requireFramework('fw', '@scope/fw')).not.toThrow();
  });

  it('says in one line which package is missing and how to install it', () => {
    process.chdir(mkdtempSync(join(tmpdir(), 'omcp-peer-')));
    let error: unknown;
    try {
      requireFramework('langchain', '@omcp-test/not-a-framework');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MissingFrameworkError);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    expect(message).toBe(
      '@omcp/instrumentation-mcp/frameworks/langchain needs @omcp-test/not-a-framework, which is not installed: npm install @omcp-test/not-a-framework',
    );
  });
});
