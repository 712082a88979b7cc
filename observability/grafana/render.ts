/**
 * Renders the dashboards to the JSON committed under `dashboards/`, formatted by the repository's
 * prettier configuration so `prettier --check .` and the up-to-date test agree.
 */
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { dashboard } from './dashboard.js';

/** A dashboard file: its path relative to `observability/grafana/` and its content. */
export interface RenderedDashboard {
  path: string;
  content: string;
}

/** Every generated dashboard file. */
export async function renderDashboards(): Promise<RenderedDashboard[]> {
  const path = 'dashboards/mcp-tool-failures.json';
  const absolute = fileURLToPath(new URL(path, import.meta.url));
  const options = (await resolveConfig(absolute)) ?? {};
  const content = await format(JSON.stringify(dashboard), { ...options, filepath: absolute });
  return [{ path, content }];
}
