// BottomFollower decides whether the chat keeps its last row in view. It follows until the
// user scrolls up, and follows again once they are back at the bottom. Content growing or the
// viewport shrinking (the ask buttons appearing) moves the bottom away without the user
// scrolling: that must not stop the following, so only a move up by the user counts.

/** How close to the bottom (px) still counts as "at the bottom". */
export const BOTTOM_SLACK = 24;

export interface ScrollGeometry {
  scrollTop: number;
  scrollHeight: number;
  clientHeight: number;
}

export class BottomFollower {
  following = true;
  private lastTop = 0;

  /** onScroll records a scroll position and returns whether the list still follows. */
  onScroll(g: ScrollGeometry): boolean {
    const gap = g.scrollHeight - g.clientHeight - g.scrollTop;
    if (gap <= BOTTOM_SLACK) this.following = true;
    else if (g.scrollTop < this.lastTop - 1) this.following = false;
    this.lastTop = g.scrollTop;
    return this.following;
  }

  /** jump starts following again (the "Jump to latest" button). */
  jump(): void {
    this.following = true;
  }
}
