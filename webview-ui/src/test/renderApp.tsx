// renderApp mounts the whole webview on a FakeClient, the way the extension would host it.

import { act, render } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { VirtuosoMockContext } from "react-virtuoso";
import type { SubscribeResponse } from "@cairn/proto/gen/cairn/v1/task_pb";
import { TaskService, UiService } from "@cairn/proto/gen/cairn/v1/task_pb";
import { StateService } from "@cairn/proto/gen/cairn/v1/state_pb";
import { FakeClient } from "../rpc/fake";
import { Controller } from "../state/controller";
import { App } from "../App";

export const configuredSettings = {
  api: { baseUrl: "http://127.0.0.1:9/v1", apiKeySet: true, model: "gpt-4o" },
  autoApprove: { enabled: true, readFiles: true, safeCommands: true, maxRequests: 20 },
  outputLineLimit: 500,
  focusChainEnabled: true,
  focusChainInterval: 6,
  checkpointsEnabled: true,
};

export async function flushAsync(): Promise<void> {
  await act(async () => {
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  });
}

export async function renderApp(opts: { taskId?: string; settings?: object | null; fake?: FakeClient } = {}) {
  const fake = opts.fake ?? new FakeClient();
  if (!opts.fake) {
    fake.on(StateService.method.getState, () => ({ settings: opts.settings === null ? {} : (opts.settings ?? configuredSettings) }));
    fake.on(TaskService.method.listTasks, () => ({ tasks: [] }));
    fake.on(StateService.method.listModels, () => ({ models: ["gpt-4o", "gpt-4o-mini"] }));
    fake.on(TaskService.method.newTask, () => ({ taskId: "t-new" }));
  }
  if (opts.taskId) fake.persisted = { taskId: opts.taskId };
  const ctrl = new Controller(fake, { scheduler: (fn) => queueMicrotask(fn) });
  const user = userEvent.setup();
  const utils = render(
    <VirtuosoMockContext.Provider value={{ viewportHeight: 4000, itemHeight: 40 }}>
      <App ctrl={ctrl} />
    </VirtuosoMockContext.Provider>,
  );
  await flushAsync();
  act(() => fake.emitHost({ type: "host", event: "context", workspaceRoots: ["/work/proj"], hostId: "host-1", clientId: "webview-1" }));
  /** push delivers subscription events on the current task's stream. */
  const push = async (...events: SubscribeResponse[]) => {
    const s = fake.lastStream(UiService.method.subscribe);
    for (const e of events) s.push(e);
    await flushAsync();
  };
  return { fake, ctrl, user, push, ...utils };
}
