import { Body, Controller, Get, Headers, HttpCode, Param, Post, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { openEventStream } from '../http/event-stream.js';
import type { z } from 'zod';
import { ProblemError, RequireScope, ZodValidationPipe } from '#platform';
import type { AuditJob, AuditJobAnswer } from './audit-job.js';
import { auditJobAnswer, auditJobStartedAnswer, JOB_LOCATION, jobIdParam, PREFER, prefersAsync, startAuditBody, storeAuditAnswer } from './audit-jobs.schemas.js';
import { ApiRoute } from '../docs/api-route.decorator.js';
import { GetAuditJob } from './get-audit-job.query.js';
import { StartStoreAudit } from './start-store-audit.command.js';

/** SSE progress is sent at most this often (and once more at the end). */
const LIVE_EVERY_MS = 250;

/**
 * Whole-store audits, run as jobs (scope `admin`): `POST /v1/audit` answers the contract's result once the audit
 * has run (200), or with `Prefer: respond-async` the job at once (202; the running one when a job already runs);
 * `GET /v1/audit/{jobId}` its progress and at the end its mismatches, and `GET /v1/audit/{jobId}/live` the same
 * as Server-Sent Events (`progress`, then one `done`). A job runs to its end whether or not anyone is listening.
 */
@ApiTags('audit')
@ApiBearerAuth()
@Controller('v1/audit')
@RequireScope('admin')
export class AuditJobsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    summary: 'Audit every session',
    description:
      'Optionally only the sessions whose stream changed at or after `since`. Runs as a job, one at a time per database: a start while this replica runs one joins that job; while another replica runs one, 409 `AUDIT_ALREADY_RUNNING`. Answers the result once the audit has run; with `Prefer: respond-async`, the job at once (202).',
    body: startAuditBody,
    headers: [PREFER],
    ok: {
      description: 'The audit ran: every session audited, the mismatches with their differences, and the job it ran as.',
      schema: storeAuditAnswer,
      headers: { Location: JOB_LOCATION },
    },
    also: {
      202: {
        description: 'With `Prefer: respond-async` (`Preference-Applied` says so): the job, started or already running (`alreadyRunning: true`).',
        schema: auditJobStartedAnswer,
        headers: { Location: JOB_LOCATION },
      },
    },
    problems: [409],
  })
  @Post()
  @HttpCode(200)
  async start(
    @Body(new ZodValidationPipe(startAuditBody)) body: z.infer<typeof startAuditBody>,
    @Headers('prefer') prefer: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<(AuditJobAnswer & { alreadyRunning: boolean }) | (NonNullable<AuditJobAnswer['result']> & { jobId: string })> {
    const { job, started } = await this.commands.execute(new StartStoreAudit(body?.since ? new Date(body.since) : null));
    reply.header('Location', `/v1/audit/${job.jobId}`);
    if (prefersAsync(prefer)) {
      reply.status(202).header('Preference-Applied', 'respond-async');
      return { ...job.answer(), alreadyRunning: !started };
    }
    // The job goes on if this client leaves; its answer is the contract's, at its end.
    if (job.running) await new Promise<void>((resolve) => job.once('end', () => resolve()));
    const { result, error } = job.answer();
    if (result === null) throw new ProblemError(500, 'INTERNAL', `The audit job ${job.jobId} failed: ${error ?? 'unknown error'}.`);
    return { ...result, jobId: job.jobId };
  }

  @ApiRoute({
    summary: 'An audit job: progress, and at the end its result',
    params: { jobId: jobIdParam },
    ok: auditJobAnswer,
    problems: [400, 404],
  })
  @Get(':jobId')
  async get(@Param('jobId') jobId: string): Promise<AuditJobAnswer> {
    return (await this.job(jobId)).answer();
  }

  @ApiRoute({
    summary: "Server-Sent Events of an audit job's progress",
    description: 'A job runs to its end whether or not anyone listens; a client that leaves only unsubscribes.',
    params: { jobId: jobIdParam },
    ok: {
      description: 'The event stream: `progress` events (at most every 250 ms), then one `done`; then it ends.',
      events: {
        progress: { description: 'The job while it runs.', schema: auditJobAnswer },
        done: { description: 'The job at its end (`completed` with its result, or `failed` with its error).', schema: auditJobAnswer },
      },
    },
    problems: [400, 404],
  })
  @Get(':jobId/live')
  @ApiProduces('text/event-stream')
  async live(@Param('jobId') jobId: string, @Res() reply: FastifyReply): Promise<void> {
    const job = await this.job(jobId);
    const response = openEventStream(reply);
    const send = (event: string) => response.write(`event: ${event}\ndata: ${JSON.stringify(job.answer())}\n\n`);
    let timer: NodeJS.Timeout | null = null;
    const onProgress = () => {
      timer ??= setTimeout(() => {
        timer = null;
        if (job.running) send('progress');
      }, LIVE_EVERY_MS);
    };
    const cleanUp = () => {
      if (timer) clearTimeout(timer);
      job.off('progress', onProgress);
      job.off('end', onEnd);
    };
    // The client leaving only unsubscribes it: the job goes on.
    const onEnd = () => {
      cleanUp();
      send('done');
      response.end();
    };
    response.on('close', cleanUp);
    send('progress');
    if (!job.running) return onEnd();
    job.on('progress', onProgress);
    job.on('end', onEnd);
  }

  private job(jobId: string): Promise<AuditJob> {
    const checked = jobIdParam.safeParse(jobId);
    if (!checked.success) {
      throw new ProblemError(400, 'VALIDATION_FAILED', 'The path parameter jobId is not an audit job id.', [
        { path: 'jobId', message: checked.error.issues[0]?.message ?? 'invalid' },
      ]);
    }
    return this.queries.execute(new GetAuditJob(jobId));
  }
}
