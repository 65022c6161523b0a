// LanguageModels answers the daemon's language model requests with the editor's own models
// (the vscode-lm provider, README "Providers"): lmModels lists them, lmChat sends a request
// and streams its parts back as LmChatPart events and one LmChatEnd, lmCancel fires the
// request's CancellationTokenSource. It is free of VS Code at run time: extension.ts passes the
// real Language Model API, the tests a fake one.
//
// The daemon has already mapped Cairn's conversation (core/llm/vscodelm): the system prompt is
// the first text part of the first user message (the API has no system role), tool calls are
// assistant parts and tool results user parts. Here the parts only become the API's classes.
//
// lmChat is answered at once: the first request to a model shows VS Code's consent dialog,
// which may wait on the user longer than any request deadline; its outcome is in the end event.

import { create } from "@bufbuild/protobuf";
import type * as vscode from "vscode";
import {
  LmChatEndSchema,
  LmChatPartSchema,
  LmErrorCode,
  LmModelSchema,
  LmModelsResultSchema,
  LmRole,
  LmToolCallSchema,
  type LmChatRequest,
  type LmMessage,
} from "@cairn/proto/gen/cairn/host/v1/host_pb";
import { emptyResult, type Handlers } from "./dispatcher";
import type { EventOneof } from "./bridge";

/** LmApi is the part of VS Code's API this host uses: `vscode` itself in the extension. */
export interface LmApi {
  lm: { selectChatModels(selector?: vscode.LanguageModelChatSelector): Thenable<vscode.LanguageModelChat[]> };
  LanguageModelChatMessage: Pick<typeof vscode.LanguageModelChatMessage, "User" | "Assistant">;
  LanguageModelTextPart: typeof vscode.LanguageModelTextPart;
  LanguageModelToolCallPart: typeof vscode.LanguageModelToolCallPart;
  LanguageModelToolResultPart: typeof vscode.LanguageModelToolResultPart;
  LanguageModelError: typeof vscode.LanguageModelError;
  CancellationTokenSource: typeof vscode.CancellationTokenSource;
}

/** JUSTIFICATION is shown in VS Code's consent dialog for the first request to a model. */
export const JUSTIFICATION = "Cairn, the coding agent, sends your task's conversation to this model to work on it.";

/** toChatMessages builds the API's messages from the daemon's. */
export function toChatMessages(api: LmApi, messages: LmMessage[]): vscode.LanguageModelChatMessage[] {
  return messages.map((m) => {
    if (m.role === LmRole.ASSISTANT) {
      const parts: Array<vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart> = [];
      for (const p of m.parts) {
        if (p.part.case === "text") parts.push(new api.LanguageModelTextPart(p.part.value));
        else if (p.part.case === "toolCall") {
          parts.push(new api.LanguageModelToolCallPart(p.part.value.callId, p.part.value.name, parseObject(p.part.value.inputJson)));
        }
      }
      return api.LanguageModelChatMessage.Assistant(parts);
    }
    const parts: Array<vscode.LanguageModelTextPart | vscode.LanguageModelToolResultPart> = [];
    for (const p of m.parts) {
      if (p.part.case === "text") parts.push(new api.LanguageModelTextPart(p.part.value));
      else if (p.part.case === "toolResult") {
        parts.push(new api.LanguageModelToolResultPart(p.part.value.callId, [new api.LanguageModelTextPart(p.part.value.text)]));
      }
    }
    return api.LanguageModelChatMessage.User(parts);
  });
}

/** toChatTools builds the API's tool definitions. */
export function toChatTools(req: LmChatRequest): vscode.LanguageModelChatTool[] {
  return req.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: parseObject(t.inputSchemaJson) }));
}

/** parseObject reads a JSON object; anything else (the model's broken arguments) is {}. */
function parseObject(json: string): object {
  try {
    const v: unknown = JSON.parse(json || "{}");
    return v !== null && typeof v === "object" && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

/** errorCode maps what a request threw onto the bridge's codes. */
export function errorCode(api: LmApi, e: unknown): LmErrorCode {
  if (e instanceof api.LanguageModelError) {
    switch (e.code) {
      case "NoPermissions":
        return LmErrorCode.NO_PERMISSIONS;
      case "Blocked":
        return LmErrorCode.BLOCKED;
      case "NotFound":
        return LmErrorCode.NOT_FOUND;
    }
  }
  if (e instanceof Error && (e.name === "Canceled" || e.message === "Canceled")) return LmErrorCode.CANCELLED;
  return LmErrorCode.OTHER;
}

export class LanguageModels {
  /** running are the chats in flight, by chat id. */
  private readonly running = new Map<string, vscode.CancellationTokenSource>();

  constructor(
    private readonly api: LmApi,
    private readonly send: (e: EventOneof) => void,
    private readonly log: (line: string) => void = () => {},
  ) {}

  handlers(): Pick<Handlers, "lmChat" | "lmCancel" | "lmModels"> {
    return {
      lmModels: async () => {
        const models = await this.api.lm.selectChatModels();
        return {
          case: "lmModels",
          value: create(LmModelsResultSchema, {
            models: models.map((m) =>
              create(LmModelSchema, { id: m.id, vendor: m.vendor, family: m.family, name: m.name, maxInputTokens: BigInt(Math.max(0, m.maxInputTokens || 0)) }),
            ),
          }),
        };
      },
      lmChat: async (req) => {
        const cts = new this.api.CancellationTokenSource();
        this.running.set(req.chatId, cts);
        void this.run(req, cts).finally(() => {
          this.running.delete(req.chatId);
          cts.dispose();
        });
        return emptyResult;
      },
      lmCancel: async (req) => {
        this.running.get(req.chatId)?.cancel();
        return emptyResult;
      },
    };
  }

  /** inFlight is how many chats are running (for tests and the log). */
  get inFlight(): number {
    return this.running.size;
  }

  private async run(req: LmChatRequest, cts: vscode.CancellationTokenSource): Promise<void> {
    const chatId = req.chatId;
    const end = (fields: { code?: LmErrorCode; message?: string; inputTokens?: bigint; outputTokens?: bigint; estimated?: boolean }) =>
      this.send({ case: "lmEnd", value: create(LmChatEndSchema, { chatId, ...fields }) });
    try {
      const [model] = await this.api.lm.selectChatModels({ id: req.modelId });
      if (!model) {
        end({ code: LmErrorCode.GONE, message: `VS Code lists no model with the id "${req.modelId}" now` });
        return;
      }
      const messages = toChatMessages(this.api, req.messages);
      const tools = toChatTools(req);
      const resp = await model.sendRequest(messages, { justification: JUSTIFICATION, tools: tools.length ? tools : undefined }, cts.token);
      let written = "";
      for await (const part of resp.stream) {
        if (cts.token.isCancellationRequested) break;
        if (part instanceof this.api.LanguageModelTextPart) {
          written += part.value;
          this.send({ case: "lmPart", value: create(LmChatPartSchema, { chatId, part: { case: "text", value: part.value } }) });
        } else if (part instanceof this.api.LanguageModelToolCallPart) {
          const inputJson = JSON.stringify(part.input ?? {});
          written += part.name + inputJson;
          const call = create(LmToolCallSchema, { callId: part.callId, name: part.name, inputJson });
          this.send({ case: "lmPart", value: create(LmChatPartSchema, { chatId, part: { case: "toolCall", value: call } }) });
        }
      }
      if (cts.token.isCancellationRequested) {
        end({ code: LmErrorCode.CANCELLED });
        return;
      }
      // The API reports no usage: count with the model's own tokenizer.
      const count = async (x: string | vscode.LanguageModelChatMessage, text: string) => {
        try {
          return await model.countTokens(x);
        } catch {
          return Math.ceil(text.length / 4);
        }
      };
      const inputs = await Promise.all(messages.map((m, i) => count(m, JSON.stringify(req.messages[i]?.parts ?? []))));
      const input = inputs.reduce((a, b) => a + b, 0);
      const output = written ? await count(written, written) : 0;
      end({ inputTokens: BigInt(input), outputTokens: BigInt(output), estimated: true });
    } catch (e) {
      const code = cts.token.isCancellationRequested ? LmErrorCode.CANCELLED : errorCode(this.api, e);
      const message = e instanceof Error ? e.message : String(e);
      if (code !== LmErrorCode.CANCELLED) this.log(`[lm] ${req.modelId}: ${message}`);
      end({ code, message: code === LmErrorCode.CANCELLED ? "" : message });
    }
  }
}
