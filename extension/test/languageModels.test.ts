import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { LmChatRequestSchema, LmErrorCode, LmRole, type LmChatEnd, type LmChatPart } from "@cairn/proto/gen/cairn/host/v1/host_pb";
import { JUSTIFICATION, LanguageModels, toChatMessages, type LmApi } from "../src/host/languageModels";
import type { EventOneof } from "../src/host/bridge";
import { AsyncQueue } from "../src/host/queue";

// A fake of VS Code's Language Model API, shaped like the real classes.

class TextPart {
  constructor(public value: string) {}
}
class ToolCallPart {
  constructor(public callId: string, public name: string, public input: object) {}
}
class ToolResultPart {
  constructor(public callId: string, public content: unknown[]) {}
}
class ChatMessage {
  constructor(public role: "user" | "assistant", public content: unknown[]) {}
  static User(content: unknown[]) {
    return new ChatMessage("user", content);
  }
  static Assistant(content: unknown[]) {
    return new ChatMessage("assistant", content);
  }
}
class LmError extends Error {
  constructor(message: string, public code: string) {
    super(message);
  }
  static NoPermissions(m = "no") {
    return new LmError(m, "NoPermissions");
  }
  static Blocked(m = "blocked") {
    return new LmError(m, "Blocked");
  }
}
class TokenSource {
  private listeners: Array<() => void> = [];
  token = {
    isCancellationRequested: false,
    onCancellationRequested: (fn: () => void) => {
      this.listeners.push(fn);
      return { dispose() {} };
    },
  };
  cancel() {
    this.token.isCancellationRequested = true;
    for (const l of this.listeners) l();
  }
  dispose() {}
}

type Token = TokenSource["token"];
interface SentRequest {
  messages: ChatMessage[];
  options: { justification?: string; tools?: Array<{ name: string; description: string; inputSchema?: object }> };
  token: Token;
}

/** FakeModel plays parts; a part "WAIT" stops until the request is cancelled. */
class FakeModel {
  sent: SentRequest[] = [];
  stoppedByCancel = false;
  constructor(
    public id: string,
    private parts: unknown[],
    private fail?: Error,
  ) {}
  vendor = "test-vendor";
  family = "scripted";
  name = "Scripted";
  version = "1";
  maxInputTokens = 32000;
  async sendRequest(messages: ChatMessage[], options: SentRequest["options"], token: Token) {
    this.sent.push({ messages, options, token });
    if (this.fail) throw this.fail;
    const parts = this.parts;
    const self = this;
    async function* stream() {
      for (const p of parts) {
        if (p === "WAIT") {
          await new Promise<void>((resolve) => token.onCancellationRequested(resolve));
          self.stoppedByCancel = true;
          return;
        }
        yield p;
      }
    }
    return { stream: stream(), text: (async function* () {})() };
  }
  async countTokens(x: string | ChatMessage) {
    return typeof x === "string" ? x.length : 10;
  }
}

function fakeApi(models: FakeModel[]): LmApi {
  return {
    lm: { selectChatModels: async (sel?: { id?: string }) => models.filter((m) => !sel?.id || m.id === sel.id) },
    LanguageModelChatMessage: ChatMessage,
    LanguageModelTextPart: TextPart,
    LanguageModelToolCallPart: ToolCallPart,
    LanguageModelToolResultPart: ToolResultPart,
    LanguageModelError: LmError,
    CancellationTokenSource: TokenSource,
  } as unknown as LmApi;
}

/** host wires LanguageModels to a queue of the events it sends. */
function host(models: FakeModel[]) {
  const events = new AsyncQueue<EventOneof>();
  const lm = new LanguageModels(fakeApi(models), (e) => events.push(e));
  const it = events[Symbol.asyncIterator]();
  const next = async () => (await it.next()).value as EventOneof;
  /** until collects events up to the end of the chat. */
  const until = async () => {
    const parts: LmChatPart[] = [];
    for (;;) {
      const e = await next();
      if (e.case === "lmEnd") return { parts, end: e.value as LmChatEnd };
      if (e.case === "lmPart") parts.push(e.value);
    }
  };
  return { lm, h: lm.handlers(), next, until };
}

const request = (fields: { tools?: [] } = {}) =>
  create(LmChatRequestSchema, {
    chatId: "chat-1",
    modelId: "m1",
    messages: [
      { role: LmRole.USER, parts: [{ part: { case: "text", value: "<system_instructions>be Cairn</system_instructions>" } }, { part: { case: "text", value: "write a.txt" } }] },
      {
        role: LmRole.ASSISTANT,
        parts: [{ part: { case: "text", value: "Listing." } }, { part: { case: "toolCall", value: { callId: "c0", name: "list_files", inputJson: '{"path":"."}' } } }],
      },
      { role: LmRole.USER, parts: [{ part: { case: "toolResult", value: { callId: "c0", text: "(empty)" } } }] },
    ],
    tools: [{ name: "write_to_file", description: "Writes a file", inputSchemaJson: '{"type":"object","properties":{"path":{"type":"string"}}}' }],
    ...fields,
  });

const signal = new AbortController().signal;
const ctx = { signal, deadlineMs: 1000 };

describe("toChatMessages", () => {
  it("maps text, tool calls and tool results onto the API's parts", () => {
    const got = toChatMessages(fakeApi([]), request().messages) as unknown as ChatMessage[];
    expect(got).toEqual([
      new ChatMessage("user", [new TextPart("<system_instructions>be Cairn</system_instructions>"), new TextPart("write a.txt")]),
      new ChatMessage("assistant", [new TextPart("Listing."), new ToolCallPart("c0", "list_files", { path: "." })]),
      new ChatMessage("user", [new ToolResultPart("c0", [new TextPart("(empty)")])]),
    ]);
  });

  it("gives a call whose arguments are not an object an empty input", () => {
    const got = toChatMessages(fakeApi([]), [
      { role: LmRole.ASSISTANT, parts: [{ part: { case: "toolCall", value: { callId: "c", name: "x", inputJson: "[1" } } }] },
    ] as never) as unknown as ChatMessage[];
    expect(got[0].content).toEqual([new ToolCallPart("c", "x", {})]);
  });
});

describe("LanguageModels", () => {
  it("lists the editor's models", async () => {
    const { h } = host([new FakeModel("m1", []), new FakeModel("m2", [])]);
    const r = await h.lmModels!({} as never, ctx);
    expect(r.case).toBe("lmModels");
    const models = (r.value as { models: Array<{ id: string; vendor: string; family: string; maxInputTokens: bigint }> }).models;
    expect(models.map((m) => [m.id, m.vendor, m.family, m.maxInputTokens])).toEqual([
      ["m1", "test-vendor", "scripted", 32000n],
      ["m2", "test-vendor", "scripted", 32000n],
    ]);
  });

  it("streams text and tool calls, then an end with estimated counts", async () => {
    const model = new FakeModel("m1", [new TextPart("Writing "), new TextPart("a.txt."), new ToolCallPart("c1", "write_to_file", { path: "a.txt", content: "hi" })]);
    const { h, until } = host([model]);
    expect((await h.lmChat!(request(), ctx)).case).toBe("empty");
    const { parts, end } = await until();
    expect(parts.map((p) => p.part.case === "text" ? p.part.value : [p.part.value?.callId, p.part.value?.name, p.part.value?.inputJson])).toEqual([
      "Writing ",
      "a.txt.",
      ["c1", "write_to_file", '{"path":"a.txt","content":"hi"}'],
    ]);
    expect(parts.every((p) => p.chatId === "chat-1")).toBe(true);
    const written = "Writing a.txt." + 'write_to_file{"path":"a.txt","content":"hi"}';
    expect(end).toMatchObject({ chatId: "chat-1", code: LmErrorCode.UNSPECIFIED, inputTokens: 30n, outputTokens: BigInt(written.length), estimated: true });
    const sent = model.sent[0];
    expect(sent.options.justification).toBe(JUSTIFICATION);
    expect(sent.options.tools).toEqual([{ name: "write_to_file", description: "Writes a file", inputSchema: { type: "object", properties: { path: { type: "string" } } } }]);
    expect(sent.messages).toHaveLength(3);
  });

  it("offers no tools when the daemon sends none (tools called in text)", async () => {
    const model = new FakeModel("m1", [new TextPart("ok")]);
    const { h, until } = host([model]);
    await h.lmChat!(request({ tools: [] }), ctx);
    await until();
    expect(model.sent[0].options.tools).toBeUndefined();
  });

  it("cancels the request's token on lmCancel: the model stops", async () => {
    const model = new FakeModel("m1", [new TextPart("thinking"), "WAIT", new TextPart("never")]);
    const { lm, h, next, until } = host([model]);
    await h.lmChat!(request(), ctx);
    const first = await next(); // the model is streaming
    expect(first.case === "lmPart" && first.value.part.value).toBe("thinking");
    await h.lmCancel!({ chatId: "chat-1" } as never, ctx);
    const { parts, end } = await until();
    expect(parts).toEqual([]);
    expect(end.code).toBe(LmErrorCode.CANCELLED);
    expect(model.sent[0].token.isCancellationRequested).toBe(true);
    expect(model.stoppedByCancel).toBe(true);
    expect(lm.inFlight).toBe(0);
  });

  const failures: Array<[string, FakeModel[], LmErrorCode]> = [
    ["no permissions", [new FakeModel("m1", [], LmError.NoPermissions("refused in the dialog"))], LmErrorCode.NO_PERMISSIONS],
    ["blocked", [new FakeModel("m1", [], LmError.Blocked("quota"))], LmErrorCode.BLOCKED],
    ["not found", [new FakeModel("m1", [], new LmError("unknown", "NotFound"))], LmErrorCode.NOT_FOUND],
    ["a model that disappeared", [new FakeModel("other", [])], LmErrorCode.GONE],
    ["anything else", [new FakeModel("m1", [], new Error("boom"))], LmErrorCode.OTHER],
  ];
  for (const [name, models, code] of failures) {
    it(`ends with a code: ${name}`, async () => {
      const { h, until } = host(models);
      await h.lmChat!(request(), ctx);
      const { parts, end } = await until();
      expect(parts).toEqual([]);
      expect(end.code).toBe(code);
      expect(end.message).not.toBe("");
    });
  }
});
