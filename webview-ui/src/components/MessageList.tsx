// MessageList is the virtualized chat list. Only visible rows are mounted; each row subscribes
// to its own message, so the list itself re-renders only when messages are added.
//
// It follows the bottom while the user has not scrolled up: new rows, a last row that grows
// (streamed text, command output) and a viewport that shrinks (the ask buttons appear) all keep
// the end in view. Once the user scrolls up it stays put and offers "Jump to latest"; the user's
// own send or answer (TaskStore.userActed) brings the end into view and follows again.
//
// A row the store is asked to reveal (a subtask's, from the strip or the Board) is brought into
// view instead, marked, and the list stops following the end, as if the user had scrolled there.

import { forwardRef, useCallback, useEffect, useRef, useState, type HTMLAttributes } from "react";
import { Virtuoso, type VirtuosoHandle } from "react-virtuoso";
import { useMessageCount, type TaskStore } from "../state/taskStore";
import { BottomFollower } from "../util/followBottom";
import { MessageRow } from "./MessageRow";
import { recallScroll, rememberScroll } from "../util/scrollMemory";

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
  const follower = useRef(new BottomFollower()).current;
  const [scroller, setScroller] = useState<HTMLElement | null>(null);
  const [away, setAway] = useState(false);
  const epoch = store.epoch;
  // The place this task's list was left at when another task was shown (util/scrollMemory.ts).
  const [place] = useState(() => recallScroll(store));
  useEffect(() => {
    const list = ref.current;
    return () =>
      list?.getState((state) => rememberScroll(store, { state, following: follower.following, epoch: store.epoch, userActs: store.userActs }));
  }, [store, follower]);

  const [revealed, setRevealed] = useState<number>();
  /** reveal brings the row the store holds to reveal into view, once it is there. */
  const reveal = useCallback((): boolean => {
    const index = store.revealing;
    const pos = index === undefined ? -1 : index - store.firstIndex;
    if (index === undefined || pos < 0 || pos >= store.count) return false;
    store.revealing = undefined;
    follower.following = false;
    setAway(true);
    setRevealed(index);
    ref.current?.scrollToIndex({ index: pos, align: "center" });
    return true;
  }, [store, follower]);
  useEffect(() => store.subscribeReveal(() => void reveal()), [store, reveal]);

  const toEnd = useCallback(() => {
    ref.current?.scrollToIndex({ index: "LAST", align: "end" });
    // A last row taller than the viewport: scrollToIndex aligns its end, and scrolling the
    // scroller to its full height covers rows still being measured.
    if (scroller) scroller.scrollTop = scroller.scrollHeight;
  }, [scroller]);

  /** follow brings the end into view and follows the stream again. */
  const follow = useCallback(() => {
    follower.jump();
    setAway(false);
    toEnd();
  }, [follower, toEnd]);

  // The user's own send or answer: they want to see what follows it.
  useEffect(() => store.subscribeUserActs(follow), [store, follow]);

  // A snapshot (task opened, resumed, re-subscribed) starts at the end of the conversation.
  // Rows measure themselves after the first pass, so scroll again on the next frames.
  const restored = useRef(place !== undefined && !place.following);
  useEffect(() => {
    if (count === 0) return;
    if (reveal()) {
      restored.current = false;
      return;
    }
    if (restored.current) {
      // Back to a task whose list was scrolled up: it stays where it was.
      restored.current = false;
      follower.following = false;
      setAway(true);
      return;
    }
    follower.jump();
    setAway(false);
    toEnd();
    // Unless the user has scrolled away meanwhile.
    const again = () => follower.following && toEnd();
    let b = 0;
    const a = requestAnimationFrame(() => {
      again();
      b = requestAnimationFrame(again);
    });
    return () => {
      cancelAnimationFrame(a);
      cancelAnimationFrame(b);
    };
    // Only when a new snapshot arrives, not on every added message.
  }, [epoch, count > 0]);

  // The user's scrolling decides whether to follow; a resized viewport keeps the end in view.
  useEffect(() => {
    if (!scroller) return;
    const onScroll = () => setAway(!follower.onScroll(scroller));
    scroller.addEventListener("scroll", onScroll, { passive: true });
    const ro = new ResizeObserver(() => {
      if (follower.following) toEnd();
    });
    ro.observe(scroller);
    return () => {
      scroller.removeEventListener("scroll", onScroll);
      ro.disconnect();
    };
  }, [scroller, follower, toEnd]);

  const grown = useCallback(() => {
    if (follower.following) toEnd();
  }, [follower, toEnd]);

  return (
    <div className="message-list-wrap">
      <Virtuoso
        ref={ref}
        scrollerRef={(el) => setScroller(el instanceof HTMLElement ? el : null)}
        className="message-list"
        totalCount={count}
        components={components}
        followOutput={() => (follower.following ? "auto" : false)}
        totalListHeightChanged={grown}
        increaseViewportBy={{ top: 400, bottom: 400 }}
        restoreStateFrom={place && !place.following ? place.state : undefined}
        computeItemKey={(i) => `${store.firstIndex + i}`}
        itemContent={(i) =>
          store.firstIndex + i === revealed ? (
            <div className="row-revealed" data-revealed>
              <MessageRow store={store} pos={i} />
            </div>
          ) : (
            <MessageRow store={store} pos={i} />
          )
        }
      />
      {away && (
        <div className="jump-latest-bar">
        <button
          className="button secondary jump-latest"
          onClick={follow}
        >
          <span className="codicon codicon-arrow-down" aria-hidden /> Jump to latest
        </button>
        </div>
      )}
    </div>
  );
}
