import { useEffect, useMemo, useState } from 'react';
import type { Marker, StoredEvent, Transcript } from './api';
import type { Auth } from './app';
import { colorOf, EventChart } from './event-chart';
import { formatTime, preview } from './format';
import { Empty, ProblemView } from './problem-view';
import { TranscriptList } from './transcript-view';
import { useAsync } from './use-async';

const PAGE = 200;

/** Markers as of a version come with a `since=0` answer of that version (its `markers` field). */
interface AtAnswer extends Transcript {
  readonly markers: readonly Marker[];
}

export function TimelineTab({ auth, sessionId, version }: { auth: Auth; sessionId: string; version: number }) {
  const [events, setEvents] = useState<StoredEvent[]>([]);
  const [nextAfter, setNextAfter] = useState<number | null>(0);
  const [pageError, setPageError] = useState<unknown>(undefined);
  const [at, setAt] = useState<number | null>(null);

  const loadPage = async (after: number) => {
    try {
      const page = await auth.api.call(auth.api.http.GET('/v1/sessions/{id}/events', { params: { path: { id: sessionId }, query: { after, limit: PAGE } } }));
      setEvents((held) => (after === 0 ? [...page.items] : [...held, ...page.items]));
      setNextAfter(page.nextAfter);
      setPageError(undefined);
    } catch (error) {
      setPageError(error);
    }
  };
  useEffect(() => {
    void loadPage(0);
  }, [sessionId]);

  const shown = at ?? version;
  const transcript = useAsync<AtAnswer | null>(
    (signal) => (shown > 0 ? auth.api.call(auth.api.http.GET('/v1/sessions/{id}/transcript', { params: { path: { id: sessionId }, query: { view: 'display', at: shown, since: 0 } }, signal }), signal) as Promise<AtAnswer> : Promise.resolve(null)),
    [sessionId, shown],
  );
  const types = useMemo(() => [...new Set(events.map((e) => e.type))].sort(), [events]);

  return (
    <div className="timeline">
      <div className="card">
        <h2>Events over time</h2>
        {events.length ? <EventChart events={events} types={types} onPick={setAt} /> : <Empty title="No events loaded" />}
        {nextAfter !== null && <p className="muted small">Chart of the first {events.length} events; load more below.</p>}
      </div>
      <div className="card time-travel">
        <div className="time-travel-head">
          <h2>Time travel</h2>
          <label htmlFor="version-slider" className="muted">
            Transcript as of version <strong data-testid="at-version">{shown}</strong> of {version}
          </label>
          {at !== null && (
            <button type="button" className="ghost" onClick={() => setAt(null)}>
              Back to now
            </button>
          )}
        </div>
        <input
          id="version-slider"
          type="range"
          min={1}
          max={Math.max(version, 1)}
          value={Math.max(shown, 1)}
          onChange={(e) => setAt(Number(e.target.value) === version ? null : Number(e.target.value))}
          aria-valuetext={`version ${shown}`}
        />
      </div>
      <div className="timeline-split">
        <div className="card events-card">
          <h2>Events</h2>
          {pageError !== undefined && <ProblemView error={pageError} />}
          {events.length === 0 && pageError === undefined ? (
            <Empty title="No events" />
          ) : (
            <ol className="events">
              {events.map((e) => (
                <li key={e.version}>
                  <button type="button" className={`event${e.version === shown ? ' on' : ''}`} onClick={() => setAt(e.version === version ? null : e.version)} aria-pressed={e.version === shown}>
                    <span className="event-version">v{e.version}</span>
                    <i className="swatch" style={{ background: colorOf(types, e.type) }} />
                    <span className="event-type">{e.type}</span>
                    <span className="event-data muted">{preview(e.data, 80)}</span>
                    <time className="muted small">{formatTime(e.recordedAt)}</time>
                  </button>
                </li>
              ))}
            </ol>
          )}
          {nextAfter !== null && (
            <button type="button" onClick={() => loadPage(nextAfter)}>
              Load more events
            </button>
          )}
        </div>
        <div className="card at-card">
          <h2>Transcript at v{shown}</h2>
          {transcript.error !== undefined && <ProblemView error={transcript.error} />}
          {transcript.data && (
            <div className="at-transcript" data-testid="at-transcript">
              <TranscriptList label={`Transcript as of version ${shown}`} messages={transcript.data.messages} toolCards={transcript.data.toolCards} markers={transcript.data.markers} streaming={null} pending={null} />
            </div>
          )}
        </div>
      </div>
    </div>
  );
}
