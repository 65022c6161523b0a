// Dispatcher routes each host request to its handler (one file per request kind) and turns the
// outcome into a Response. It never throws: a failing handler becomes Response.error.

import { create } from "@bufbuild/protobuf";
import { ResponseSchema, type Request, type Response } from "@cairn/proto/gen/cairn/host/v1/host_pb";

export type RequestOneof = Exclude<Request["request"], { case: undefined }>;
export type RequestCase = RequestOneof["case"];
export type RequestValue<C extends RequestCase> = Extract<RequestOneof, { case: C }>["value"];
export type Result = Response["result"];

export interface RequestContext {
  /** Aborted when the deadline passes or the bridge closes. */
  signal: AbortSignal;
  deadlineMs: number;
}

export type Handler<C extends RequestCase> = (req: RequestValue<C>, ctx: RequestContext) => Promise<Result>;
export type Handlers = { [C in RequestCase]?: Handler<C> };

export const emptyResult: Result = { case: "empty", value: { $typeName: "cairn.host.v1.Empty" } };

/** dispatch runs the handler for req and returns the response to send. */
export async function dispatch(handlers: Handlers, req: Request, signal: AbortSignal): Promise<Response> {
  const oneof = req.request;
  if (!oneof.case) return create(ResponseSchema, { id: req.id, error: "empty request" });
  const handler = handlers[oneof.case] as Handler<RequestCase> | undefined;
  if (!handler) return create(ResponseSchema, { id: req.id, error: `this editor does not support ${oneof.case}` });
  try {
    const result = await handler(oneof.value as never, { signal, deadlineMs: Number(req.deadlineMs) });
    return create(ResponseSchema, { id: req.id, result });
  } catch (e) {
    return create(ResponseSchema, { id: req.id, error: e instanceof Error ? e.message : String(e) });
  }
}
