import request from 'supertest';
import type { App } from 'supertest/types.js';

/**
 * The value of one series of a Prometheus text exposition, named as `/metrics` writes it (the metric's name and
 * its labels, e.g. `chronicle_audit_sessions_verified_total{result="match"}`); undefined when it has no sample.
 */
export function metricValue(text: string, series: string): number | undefined {
  const prefix = `${series} `;
  const line = text.split('\n').find((candidate) => candidate.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(prefix.length).split(' ')[0]);
}

/** The app's `GET /metrics` text (a scrape needs no key). */
export async function scrapeMetrics(server: App): Promise<string> {
  const res = await request(server).get('/metrics');
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`);
  return res.text;
}

/** One series of the app's `/metrics` (see `metricValue`); a counter no one has counted yet has no sample. */
export async function scrapeMetric(server: App, series: string): Promise<number | undefined> {
  return metricValue(await scrapeMetrics(server), series);
}
