// A scripted chat model for Cairn's end-to-end test of the vscode-lm provider (README,
// "Providers"). It registers through the chatProvider proposal of VS Code 1.100
// (vscode.lm.registerChatModelProvider; later versions call it registerLanguageModelChatProvider),
// which code-server enables for it with --enable-proposed-api cairn-e2e.lm-provider.
//
// What it answers, read from the conversation Cairn sends:
//   - a task containing LM-SLOW: text every 300 ms until the request is cancelled;
//   - a conversation without a tool result yet: a sentence, then a native write_to_file call;
//   - after the tool's result: an attempt_completion call.
// Every request and how it ended are appended to the file CAIRN_E2E_LM_LOG names, one JSON
// object a line, so the test can check what reached the model and that a cancel stopped it.
// Plain JavaScript, no build step.

const vscode = require("vscode");
const fs = require("node:fs");

function note(entry) {
  const file = process.env.CAIRN_E2E_LM_LOG;
  if (file) fs.appendFileSync(file, JSON.stringify({ at: Date.now(), ...entry }) + "\n");
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function parts(messages) {
  return messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [{ value: String(m.content) }]));
}

const isText = (p) => p instanceof vscode.LanguageModelTextPart || (typeof p?.value === "string" && !("callId" in p));
const isToolResult = (p) => p instanceof vscode.LanguageModelToolResultPart || ("callId" in (p ?? {}) && "content" in p);

function activate(context) {
  const provider = {
    async provideLanguageModelResponse(messages, options, extensionId, progress, token) {
      const all = parts(messages);
      const text = all.filter(isText).map((p) => p.value).join("\n");
      const results = all.filter(isToolResult).length;
      note({
        event: "request",
        from: extensionId,
        messages: messages.length,
        tools: (options?.tools ?? []).map((t) => t.name),
        firstIsUser: messages[0]?.role === vscode.LanguageModelChatMessageRole.User,
        systemMarked: text.includes("<system_instructions>"),
        toolResults: results,
      });
      const say = (value) => progress.report({ index: 0, part: new vscode.LanguageModelTextPart(value) });
      // Every part at index 0: VS Code 1.100 hands only the first index's parts to the
      // requester's response.stream.
      const call = (id, name, input) => progress.report({ index: 0, part: new vscode.LanguageModelToolCallPart(id, name, input) });
      if (text.includes("LM-SLOW")) {
        for (let i = 0; i < 400 && !token.isCancellationRequested; i++) {
          say(`slow chunk ${i}. `);
          note({ event: "chunk", i });
          await sleep(300);
        }
        note({ event: token.isCancellationRequested ? "cancelled" : "ran out" });
        return;
      }
      if (results === 0) {
        say("Writing the greeting with the editor's model.");
        call("lm-call-1", "write_to_file", { path: "lm-hello.txt", content: "hello from the editor's model\n" });
      } else {
        call("lm-call-2", "attempt_completion", { result: "Wrote lm-hello.txt through the editor's language model." });
      }
      note({ event: "answered" });
    },
    async provideTokenCount(text) {
      const s = typeof text === "string" ? text : JSON.stringify(text);
      return Math.ceil(s.length / 4);
    },
  };
  context.subscriptions.push(
    vscode.lm.registerChatModelProvider("scripted", provider, {
      vendor: "cairn-e2e",
      name: "Scripted",
      family: "scripted",
      version: "1",
      maxInputTokens: 32000,
      maxOutputTokens: 4000,
      isUserSelectable: true,
    }),
  );
  note({ event: "registered" });
}

module.exports = { activate, deactivate() {} };
