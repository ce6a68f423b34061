import { type ReactNode, useCallback, useLayoutEffect, useMemo, useRef, useState } from 'react';

interface VirtualListProps {
  readonly count: number;
  readonly renderItem: (index: number) => ReactNode;
  /** A guess for rows not measured yet; measured heights replace it as rows render. */
  readonly estimate?: number;
  readonly overscan?: number;
  /** Stay at the bottom while new content arrives, if the reader was already there. */
  readonly followBottom?: boolean;
  /** Changes when the content of the last rows changes without the count changing (streamed text). */
  readonly tailKey?: unknown;
  readonly label: string;
}

const isAtBottom = (element: HTMLElement): boolean => element.scrollHeight - element.scrollTop - element.clientHeight < 48;

/**
 * Renders only the rows in and near the viewport of its scroll box, each absolutely placed at the sum of the
 * heights before it: a 10,000-row transcript mounts a few dozen elements. Heights are measured with a
 * ResizeObserver as rows render (markdown, open details), so the offsets settle as the reader scrolls.
 */
export function VirtualList({ count, renderItem, estimate = 110, overscan = 6, followBottom = true, tailKey, label }: VirtualListProps) {
  const box = useRef<HTMLDivElement>(null);
  const heights = useRef<number[]>([]);
  const [measured, setMeasured] = useState(0);
  const [scroll, setScroll] = useState({ top: 0, height: 800 });
  const atBottom = useRef(true);
  /** The scrollTop the list last saw (its scroll handler, or its own follow to the bottom). */
  const seenTop = useRef(0);

  const offsets = useMemo(() => {
    const out = new Float64Array(count + 1);
    for (let i = 0; i < count; i++) out[i + 1] = out[i] + (heights.current[i] ?? estimate);
    return out;
    // `measured` bumps when a height changed.
  }, [count, estimate, measured]);
  const total = offsets[count];

  // The first row whose bottom is below the top of the viewport (binary search over the offsets).
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (offsets[mid + 1] <= scroll.top) lo = mid + 1;
    else hi = mid;
  }
  const start = Math.max(0, lo - overscan);
  let end = lo;
  while (end < count && offsets[end] < scroll.top + scroll.height) end++;
  end = Math.min(count, end + overscan);

  const pending = useRef(false);
  const observer = useMemo(
    () =>
      typeof ResizeObserver === 'undefined'
        ? null
        : new ResizeObserver((entries) => {
            let changed = false;
            for (const entry of entries) {
              const index = Number((entry.target as HTMLElement).dataset.index);
              const height = (entry.target as HTMLElement).offsetHeight;
              if (height > 0 && heights.current[index] !== height) {
                heights.current[index] = height;
                changed = true;
              }
            }
            if (changed && !pending.current) {
              pending.current = true;
              requestAnimationFrame(() => {
                pending.current = false;
                setMeasured((m) => m + 1);
              });
            }
          }),
    [],
  );
  const measure = useCallback(
    (element: HTMLDivElement | null) => {
      if (!element || !observer) return;
      observer.observe(element);
      return () => observer.unobserve(element);
    },
    [observer],
  );

  const onScroll = () => {
    const element = box.current;
    if (!element) return;
    atBottom.current = isAtBottom(element);
    seenTop.current = element.scrollTop;
    setScroll({ top: element.scrollTop, height: element.clientHeight });
  };

  /**
   * Keeps a reader who sits at the bottom there. A scroll the handler has not seen yet (scroll events come with
   * the next frame) means the reader moved: where they are now decides, not where they were, or a height
   * measured in between would pull a reader who just scrolled up back to the bottom.
   */
  const followToBottom = (element: HTMLDivElement) => {
    if (element.scrollTop !== seenTop.current) atBottom.current = isAtBottom(element);
    if (!atBottom.current) return;
    element.scrollTop = element.scrollHeight;
    seenTop.current = element.scrollTop;
  };

  useLayoutEffect(() => {
    const element = box.current;
    if (!element) return;
    setScroll({ top: element.scrollTop, height: element.clientHeight });
    const resize = new ResizeObserver(() => {
      // A shrinking box (a notice above it) keeps a reader who was at the bottom there.
      if (followBottom) followToBottom(element);
      setScroll({ top: element.scrollTop, height: element.clientHeight });
    });
    resize.observe(element);
    return () => resize.disconnect();
  }, [followBottom]);

  // Follow new rows and streamed text while the reader sits at the bottom (opening a session starts there).
  useLayoutEffect(() => {
    const element = box.current;
    if (element && followBottom) followToBottom(element);
  }, [count, total, tailKey, followBottom]);

  const rows: ReactNode[] = [];
  for (let i = start; i < end; i++) {
    rows.push(
      <div key={i} ref={measure} data-index={i} className="vrow" style={{ transform: `translateY(${offsets[i]}px)` }}>
        {renderItem(i)}
      </div>,
    );
  }
  return (
    <div ref={box} className="vlist" onScroll={onScroll} tabIndex={0} role="feed" aria-label={label} aria-busy={false}>
      <div className="vlist-inner" style={{ height: total }}>
        {rows}
      </div>
    </div>
  );
}
