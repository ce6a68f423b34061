import { useMemo } from 'react';
import type { StoredEvent } from './api';
import { formatTime } from './format';

const PALETTE = ['#4f7cff', '#18a37a', '#e0952b', '#d64f6a', '#8c62d9', '#2aa3c2', '#a0863a', '#6b7a90', '#c25bb0', '#4c9a3f'];

export function colorOf(types: readonly string[], type: string): string {
  return PALETTE[Math.max(0, types.indexOf(type)) % PALETTE.length];
}

/**
 * Events over time, stacked by type, in equal time buckets across the events loaded. SVG drawn by hand: a
 * few dozen rectangles do not need a chart library.
 */
export function EventChart({ events, types, onPick }: { events: readonly StoredEvent[]; types: readonly string[]; onPick: (version: number) => void }) {
  const BUCKETS = 40;
  const { buckets, first, last, max } = useMemo(() => {
    const first = events.length ? events[0].recordedAt : 0;
    const last = events.length ? events[events.length - 1].recordedAt : 0;
    const span = Math.max(last - first, 1e-3);
    const buckets = Array.from({ length: BUCKETS }, () => ({ counts: new Map<string, number>(), lastVersion: 0, total: 0 }));
    for (const event of events) {
      const b = buckets[Math.min(BUCKETS - 1, Math.floor(((event.recordedAt - first) / span) * BUCKETS))];
      b.counts.set(event.type, (b.counts.get(event.type) ?? 0) + 1);
      b.total++;
      b.lastVersion = Math.max(b.lastVersion, event.version);
    }
    return { buckets, first, last, max: Math.max(1, ...buckets.map((b) => b.total)) };
  }, [events]);
  const W = 800;
  const H = 120;
  const bw = W / BUCKETS;
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${W} ${H + 18}`} role="img" aria-label="Events over time by type" preserveAspectRatio="none">
        <line x1="0" y1={H} x2={W} y2={H} className="axis" />
        {buckets.map((b, i) => {
          let y = H;
          return (
            <g key={i} className={b.total ? 'bar' : undefined} onClick={() => b.total && onPick(b.lastVersion)}>
              <title>{`${b.total} event(s)${b.total ? `, up to version ${b.lastVersion}` : ''}`}</title>
              {types.map((type) => {
                const n = b.counts.get(type) ?? 0;
                if (!n) return null;
                const h = (n / max) * (H - 6);
                y -= h;
                return <rect key={type} x={i * bw + 1} y={y} width={bw - 2} height={h} fill={colorOf(types, type)} rx="1.5" />;
              })}
            </g>
          );
        })}
        <text x="0" y={H + 14} className="tick">
          {formatTime(first)}
        </text>
        <text x={W} y={H + 14} className="tick" textAnchor="end">
          {formatTime(last)}
        </text>
      </svg>
      <figcaption className="legend">
        {types.map((type) => (
          <span key={type}>
            <i style={{ background: colorOf(types, type) }} />
            {type}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
