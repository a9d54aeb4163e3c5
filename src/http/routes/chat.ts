import { Readable } from 'node:stream';
import { callerId } from '../../auth/principal.js';
import type { ChatService } from '../../proxy/chat.js';
import { chatCompletionRequestSchema, chatCompletionResponseSchema } from '../../proxy/schema.js';
import type { ChatRequest } from '../../providers/types.js';
import type { Api } from '../api.js';
import { errorResponse, protectedErrors } from './schemas.js';

/**
 * POST /v1/chat/completions: OpenAI's endpoint, scanned. Non-streamed answers are JSON;
 * streamed ones are server-sent events, whose status and headers go out only once the first
 * scanned frame is ready, so an early failure (blocked output in buffer mode, a broken
 * upstream) is still a proper HTTP error. The client hanging up cancels the upstream call.
 */
export function registerChatRoutes(api: Api, chat: () => ChatService): void {
  api.add(
    {
      method: 'post',
      path: '/v1/chat/completions',
      operationId: 'createChatCompletion',
      summary: 'OpenAI-compatible chat completions with security scanning',
      description:
        'Compatible with the official OpenAI SDKs: streaming (`stream`, `stream_options.include_usage`), tools, `n`, `response_format`. ' +
        'User turns, tool results and tool-call arguments are scanned before forwarding; the model output is scanned before release. ' +
        'A blocked request answers 400 `security_violation` (code `prompt_blocked`, with `threat_ids`), or a refusal completion with ' +
        '`finish_reason: "content_filter"` when `security.block_response` is `refusal`.',
      tags: ['proxy'],
      auth: true,
      roles: ['admin', 'service'],
      body: chatCompletionRequestSchema,
      responses: {
        '200': { description: 'A chat.completion, or with `stream: true` a text/event-stream of chat.completion.chunk objects ending in `data: [DONE]`.', schema: chatCompletionResponseSchema },
        ...protectedErrors,
        '400': errorResponse('Schema violation, or `security_violation` (code `prompt_blocked` or `output_blocked`, with `threat_ids`).'),
        '404': errorResponse('No provider serves the model (code `model_not_found`).'),
        '502': errorResponse('The provider failed or sent an invalid or oversized response (`upstream_error`).'),
        '503': errorResponse('No provider configured or none healthy (`upstream_error`).'),
        '504': errorResponse('The provider timed out (`upstream_error`).'),
      },
    },
    async (ctx) => {
      const abort = new AbortController();
      // 'close' before the response finished = the client went away.
      const onClose = () => {
        if (!ctx.res.writableFinished) abort.abort();
      };
      ctx.res.once('close', onClose);
      const principal = ctx.state.principal;
      const outcome = await chat().handle(ctx.state.body as ChatRequest, {
        requestId: ctx.state.requestId,
        caller: principal ? callerId(principal) : null,
        signal: abort.signal,
        policy: principal?.policy ?? null,
      });
      if (outcome.kind === 'json') {
        ctx.body = outcome.body;
        return;
      }
      ctx.status = 200;
      ctx.set('Content-Type', 'text/event-stream; charset=utf-8');
      ctx.set('Cache-Control', 'no-cache');
      ctx.set('Connection', 'keep-alive');
      ctx.set('X-Accel-Buffering', 'no');
      ctx.req.socket.setNoDelay(true);
      ctx.body = Readable.from(outcome.frames, { objectMode: false });
    },
  );
}
