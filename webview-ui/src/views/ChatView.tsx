// ChatView: header, virtualized messages, ask buttons and the input. Always mounted (hidden
// behind other views) so the draft and scroll position survive navigation.

import { useState } from "react";
import type { Controller } from "../state/controller";
import { useApp } from "../state/appStore";
import { MessageList } from "../components/MessageList";
import { AskBar, useOpenAsk } from "../components/AskBar";
import { ChatInput } from "../components/ChatInput";
import { TaskHeader } from "../components/TaskHeader";
import { SubtaskTree } from "../components/SubtaskTree";
import { AutoApproveBar } from "../components/AutoApproveBar";
import { QueuedMessages } from "../components/QueuedMessages";
import { askButtons, working } from "../util/askButtons";
import { NewTaskPanel } from "./NewTaskPanel";

export function ChatView({ ctrl, hidden }: { ctrl: Controller; hidden: boolean }) {
  const taskId = useApp(ctrl.app, (s) => s.taskId);
  const [text, setText] = useState("");
  const [images, setImages] = useState<string[]>([]);
  const { state, ask } = useOpenAsk(ctrl);
  // While the task works without a question, a sent message waits in the daemon's queue.
  const queueing = !!taskId && working(state) && !ask;
  const cfg = askButtons(ask);
  const draft = {
    text,
    images,
    setText,
    setImages,
    clear: () => {
      setText("");
      setImages([]);
    },
  };

  const send = () => {
    const t = text.trim();
    if (!t && images.length === 0) return;
    void ctrl.send(t, { images, files: [] });
    draft.clear();
  };

  return (
    <main className="chat-view" hidden={hidden} aria-label="Chat">
      {taskId ? (
        <>
          <TaskHeader ctrl={ctrl} />
          <SubtaskTree store={ctrl.task} />
          <MessageList store={ctrl.task} />
        </>
      ) : (
        <NewTaskPanel ctrl={ctrl} />
      )}
      <QueuedMessages ctrl={ctrl} />
      <AskBar ctrl={ctrl} draft={draft} keys={!hidden} />
      <AutoApproveBar ctrl={ctrl} />
      <ChatInput
        ctrl={ctrl}
        draft={draft}
        placeholder={
          queueing ? "Queue a message: sent when the current step ends" : taskId ? cfg.placeholder : "Type your task here (@ to add context, / for commands)"
        }
        onSend={send}
      />
    </main>
  );
}
