// MessageList is the virtualized chat list. Only visible rows are mounted; each row subscribes
// to its own message, so the list itself re-renders only when messages are added.

import { forwardRef, useEffect, useRef, type HTMLAttributes } from "react";
import { Virtuoso, type VirtuosoHandle } from "react-virtuoso";
import { useMessageCount, type TaskStore } from "../state/taskStore";
import { MessageRow } from "./MessageRow";

const List = forwardRef<HTMLDivElement, HTMLAttributes<HTMLDivElement>>(function List(props, ref) {
  return <div {...props} ref={ref} role="list" aria-label="Messages" />;
});

const Item = ({ children, ...props }: HTMLAttributes<HTMLDivElement>) => (
  <div {...props} role="listitem">
    {children}
  </div>
);

const components = { List, Item };

export function MessageList({ store }: { store: TaskStore }) {
  const count = useMessageCount(store);
  const ref = useRef<VirtuosoHandle>(null);
  const epoch = store.epoch;
  // A snapshot (task opened, resumed, re-subscribed) starts at the end of the conversation.
  // Rows measure themselves after the first pass, so scroll again on the next frames.
  useEffect(() => {
    if (count === 0) return;
    const toEnd = () => ref.current?.scrollToIndex({ index: "LAST", align: "end" });
    toEnd();
    const a = requestAnimationFrame(() => {
      toEnd();
      b = requestAnimationFrame(toEnd);
    });
    let b = 0;
    return () => {
      cancelAnimationFrame(a);
      cancelAnimationFrame(b);
    };
    // Only when a new snapshot arrives, not on every added message.
  }, [epoch, count > 0]);
  return (
    <Virtuoso
      ref={ref}
      className="message-list"
      totalCount={count}
      components={components}
      followOutput={(atBottom) => (atBottom ? "auto" : false)}
      increaseViewportBy={{ top: 400, bottom: 400 }}
      computeItemKey={(i) => `${store.firstIndex + i}`}
      itemContent={(i) => <MessageRow store={store} pos={i} />}
    />
  );
}
