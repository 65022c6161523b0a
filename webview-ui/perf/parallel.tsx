// Harness for three live tasks in one window (README, "Several tasks at once"): the real app on
// the FakeClient with tasks t1 (on screen), t2 and t3 (in the strip), each with its own stream.
// perf/parallel.mjs drives it: the frame time while hidden tasks stream, while all three do,
// and while only the visible one does, the DOM mutations a hidden stream causes, and the heap.

import { createRoot } from "react-dom/client";
import "@vscode/codicons/dist/codicon.css";
import "../src/styles.css";
import { App } from "../src/App";
import { Controller } from "../src/state/controller";
import { FakeClient, type FakeStream } from "../src/rpc/fake";
import { TaskService, TaskStatus, UiService } from "@cairn/proto/gen/cairn/v1/task_pb";
import { StateService } from "@cairn/proto/gen/cairn/v1/state_pb";
import { type Message } from "@cairn/proto/gen/cairn/v1/message_pb";
import { appended, say, SayKind, snapshot } from "../src/test/fixtures";

class HarnessClient extends FakeClient {
  override ready(): void {
    super.ready();
    setTimeout(() => this.emitHost({ type: "host", event: "context", workspaceRoots: ["/home/dev/cairn"], hostId: "host-1", clientId: "webview-1" }), 0);
  }
}

const fake = new HarnessClient();
fake.on(StateService.method.getState, () => ({ settings: { api: { baseUrl: "https://api.openai.com/v1", apiKeySet: true, model: "gpt-4o" }, checkpointsEnabled: true } }));
fake.on(StateService.method.listModels, () => ({ models: ["gpt-4o"] }));
fake.on(TaskService.method.listTasks, () => ({ tasks: [] }));
fake.persisted = { taskId: "t1", openTasks: ["t1", "t2", "t3"] };
const ctrl = new Controller(fake);
createRoot(document.getElementById("root")!).render(<App ctrl={ctrl} />);

const nextFrame = () => new Promise<number>((r) => requestAnimationFrame(r));

function messages(n: number, title: string): Message[] {
  const ms: Message[] = [say(0, SayKind.TASK, { text: title })];
  for (let i = 1; i < n - 1; i++) ms.push(say(i, SayKind.TEXT, { text: `Step ${i} of ${title}: looking at **module ${i % 40}**, with \`code\`.` }));
  ms.push(say(n - 1, SayKind.TEXT, { text: "Streaming: ", partial: true }));
  return ms;
}

const streams = new Map<string, FakeStream>();
const rows = 300;

async function setup() {
  while (fake.streams.filter((s) => s.method.name === "Subscribe").length < 3) await nextFrame();
  for (const s of fake.streams) {
    if (s.method !== UiService.method.subscribe) continue;
    const id = (s.request as { taskId: string }).taskId;
    streams.set(id, s);
    s.push(snapshot(messages(rows, `task ${id}`), { taskId: id, title: `Task ${id}`, status: TaskStatus.RUNNING }));
  }
  for (let i = 0; i < 10; i++) await nextFrame();
  document.body.dataset.ready = "1";
}
void setup();

let mutations = 0;
new MutationObserver((list) => (mutations += list.length)).observe(document.getElementById("root")!, { subtree: true, childList: true, characterData: true, attributes: true });

const api = {
  /** stream pushes one 40-character delta per frame into each task named, for frames frames,
   * and returns the frame times (ms) and the DOM mutations they caused. */
  async stream(ids: string[], frames: number): Promise<{ frameMs: number[]; mutations: number }> {
    await nextFrame();
    const before = mutations;
    const frameMs: number[] = [];
    let last = await nextFrame();
    for (let f = 0; f < frames; f++) {
      for (const id of ids) streams.get(id)!.push(appended(rows - 1, "lorem ipsum dolor sit amet, consectetur "));
      const now = await nextFrame();
      frameMs.push(now - last);
      last = now;
    }
    for (let i = 0; i < 3; i++) await nextFrame();
    return { frameMs, mutations: mutations - before };
  },
  shown: () => ctrl.app.get().taskId,
  textOf: (id: string) => ctrl.open.get(id)?.store.messageAt(rows - 1)?.text.length ?? 0,
};
declare global {
  interface Window {
    __cairnParallel: typeof api;
  }
}
window.__cairnParallel = api;
