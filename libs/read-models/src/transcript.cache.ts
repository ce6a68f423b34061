import {
  render,
  renderInputsOf,
  type RenderInputs,
  renderNext,
  renderTranscript,
  type RenderedTranscript,
  type SessionState,
  type SessionView,
  followStreaming,
  type StreamingFold,
  type StreamingOutput,
  type TranscriptViewName,
} from '#domain';
import { ByteBoundedCache } from './answers/byte-bounded.cache.js';
import { LruCache } from './lru-cache.js';
import { estimatedBytes } from './session-state.cache.js';

export interface TranscriptCacheOptions {
  /** Bytes the rendered views may hold. */
  readonly viewBytes: number;
  /** Bytes the hashed transcripts may hold (half for transcripts by version, half for each session's latest). */
  readonly transcriptBytes: number;
  readonly onBytes?: (cache: 'views' | 'transcripts', bytes: number) => void;
  readonly onCache?: (result: 'hit' | 'miss') => void;
}

/**
 * What is rendered from fold states, kept in process by (session, version): the views, the transcript answers
 * hashed from them, and a pending turn's streaming output.
 */
export class TranscriptCache {
  /** Latest rendered view per session (superseded versions are dropped, so one busy session cannot
   * crowd out the others), plus a small cache for time-travel reads. */
  private readonly views: ByteBoundedCache<string, { version: number; view: SessionView; inputs: RenderInputs }>;
  private readonly pastViews = new LruCache<string, SessionView>(50);
  private readonly transcripts: ByteBoundedCache<string, RenderedTranscript>;
  /** A transcript by the rows it renders: a view reused by `renderNext` keeps its rows, so its hash is not computed again. */
  private readonly byRows = new WeakMap<object, RenderedTranscript>();
  /** Each session's newest streaming output, the fold of its pending turn it came from (`followStreaming`), and the output before it. */
  private readonly streamingFolds = new LruCache<
    string,
    { version: number; fold: StreamingFold | null; output: StreamingOutput | null; previous: { version: number; output: StreamingOutput | null } | null }
  >(256);
  /** The last transcript hashed per (session, view). */
  private readonly latestTranscripts: ByteBoundedCache<string, RenderedTranscript>;

  constructor(private readonly options: TranscriptCacheOptions) {
    const report = options.onBytes;
    this.views = new ByteBoundedCache(options.viewBytes, (bytes) => report?.('views', bytes));
    let keyedBytes = 0;
    let latestBytes = 0;
    const transcriptsReport = () => report?.('transcripts', keyedBytes + latestBytes);
    this.transcripts = new ByteBoundedCache(options.transcriptBytes / 2, (bytes) => ((keyedBytes = bytes), transcriptsReport()));
    this.latestTranscripts = new ByteBoundedCache(options.transcriptBytes / 2, (bytes) => ((latestBytes = bytes), transcriptsReport()));
  }

  /**
   * The rendered view of `state` at `version`, from the caches or rendered once and cached. A newer version
   * of the session's latest view is produced from it (`renderNext`): after a token streamed into the pending
   * turn that is the same transcript with a new summary, whatever the session's length.
   */
  view(sessionId: string, version: number, state: SessionState): SessionView {
    const latest = this.views.get(sessionId);
    let view = latest?.version === version ? latest.view : this.pastViews.get(`${sessionId}@${version}`);
    this.options.onCache?.(view ? 'hit' : 'miss');
    if (!view) {
      if (!latest || latest.version < version) {
        view = renderNext(latest, state);
        // Kept with what it was rendered from (references), not the state: a view outliving its state in the
        // states cache would otherwise hold the state's journals unweighed.
        this.views.set(sessionId, { version, view, inputs: renderInputsOf(state) }, estimatedBytes(view.display.length + view.context.length));
      } else {
        view = render(state);
        this.pastViews.set(`${sessionId}@${version}`, view);
      }
    }
    return view;
  }

  /**
   * The transcript answer (messages, tool cards, hash) of `view`, the session's at `version`, hashed once per
   * (session, version, view); kept only for a session that `exists`.
   */
  transcript(sessionId: string, name: TranscriptViewName, version: number, view: SessionView, exists: boolean): RenderedTranscript {
    const key = `${sessionId}@${version}/${name}`;
    let transcript = this.transcripts.get(key);
    if (!transcript) {
      const rows = name === 'display' ? view.display : view.context;
      const known = this.byRows.get(rows);
      const latestKey = `${sessionId}/${name}`;
      // The session's previous transcript lends the chain links of the rows both share.
      transcript = known?.toolCards === view.toolCards ? known : renderTranscript(view, name, this.latestTranscripts.get(latestKey));
      this.byRows.set(rows, transcript);
      if (exists) {
        this.transcripts.set(key, transcript, estimatedBytes(transcript.messages.length));
        this.latestTranscripts.set(latestKey, transcript, estimatedBytes(transcript.messages.length));
      }
    }
    return transcript;
  }

  /** The transcript this process rendered at `version`, if it still holds it (every answer and live patch leaves one). */
  transcriptAt(sessionId: string, name: TranscriptViewName, version: number): RenderedTranscript | undefined {
    return this.transcripts.get(`${sessionId}@${version}/${name}`);
  }

  /**
   * The pending turn's streaming output at a version. Each session's newest output is kept with the
   * `StreamingFold` it came from, so the next version of a turn that streams token by token reads only what that
   * version added (`followStreaming`), not the whole journal of the turn, however many watchers ask; and the one
   * before it, for a watcher whose read came back behind another's. No more: each output holds the turn's text
   * whole, and a few hundred versions of one long turn would hold it a few hundred times. An older version is
   * produced from the turn's start and not kept.
   */
  streaming(sessionId: string, version: number, state: SessionState): StreamingOutput | null {
    const held = this.streamingFolds.get(sessionId);
    if (held?.version === version) return held.output;
    if (held?.previous?.version === version) return held.previous.output;
    if (held !== undefined && held.version > version) return followStreaming(null, state).output;
    // A fold is advanced in place: the one held goes with the newer version.
    const { fold, output } = followStreaming(held?.fold ?? null, state);
    this.streamingFolds.set(sessionId, { version, fold, output, previous: held === undefined ? null : { version: held.version, output: held.output } });
    return output;
  }

  /** Drops everything rendered of the session (every version): its content is erased. */
  forget(sessionId: string): void {
    const ofSession = (key: string) => key === sessionId || key.startsWith(`${sessionId}@`) || key.startsWith(`${sessionId}/`);
    this.views.delete(sessionId);
    this.pastViews.deleteWhere(ofSession);
    this.transcripts.deleteWhere(ofSession);
    this.latestTranscripts.deleteWhere(ofSession);
    this.streamingFolds.delete(sessionId);
  }

  clear(): void {
    this.views.clear();
    this.pastViews.clear();
    this.transcripts.clear();
    this.latestTranscripts.clear();
    this.streamingFolds.clear();
  }
}
