import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { chooseCoding, EncodedAnswers, SessionViews, transcriptAnswerJson } from '#read-models';
import { GetTranscript, type TranscriptAnswer } from './get-transcript.query.js';
import { refuseErased, sessionNotFound } from './session-not-found.js';
import { isNotModified, transcriptEtag } from './transcript-etag.js';

@QueryHandler(GetTranscript)
export class GetTranscriptHandler implements IQueryHandler<GetTranscript> {
  constructor(
    private readonly views: SessionViews,
    private readonly answers: EncodedAnswers,
  ) {}

  async execute({ sessionId, request, negotiation }: GetTranscript): Promise<TranscriptAnswer> {
    const { since, streaming } = request;
    const read =
      since === undefined
        ? { ...(await this.views.transcript(sessionId, request.view, request.at)), delta: null }
        : await this.views.transcriptSince(sessionId, request.view, since, request.at).then((at) => ({ ...at, delta: at }));
    if (!read.exists) throw sessionNotFound(sessionId);
    // A read at the head folded the head (an erasure included); one at an earlier version checks the head too.
    await refuseErased(this.views, sessionId, request.at === undefined ? read.state : undefined);
    const { version, transcript, view, state, delta } = read;
    const { toolCards, hash } = transcript;
    // One representation per (view, version, since, streaming): each its own strong tag.
    const variant = `${since === undefined ? '' : `-since${since}`}${streaming ? '-streaming' : ''}`;
    const etag = transcriptEtag(request.view, version, hash, variant);
    if (isNotModified(negotiation.ifNoneMatch, etag)) return { etag, notModified: true };
    // Serialised once per representation and compressed once per coding, whoever asks; the rows of a
    // transcript that several versions share are serialised once for all of them.
    const key = `${sessionId}@${version}/${request.view}${variant}`;
    const answer = this.answers.get(key, () => {
      // The streaming output only for an answer not yet serialised: it is the turn's text whole.
      const tail = streaming ? { streaming: this.views.streaming(sessionId, version, state) } : {};
      const head = { sessionId, version, view: request.view };
      if (delta === null) return { etag, json: transcriptAnswerJson(head, transcript, tail) };
      if (delta.from === 0) return { etag, json: transcriptAnswerJson({ ...head, since, from: 0 }, transcript, { markers: view.markers, ...tail }) };
      return { etag, body: { ...head, since, from: delta.from, messages: delta.messages, toolCards, markers: view.markers, hash, ...tail } };
    });
    const coding = chooseCoding(negotiation.acceptEncoding, answer.identity.length);
    return { etag, notModified: false, bytes: this.answers.encode(key, answer, coding), coding };
  }
}
