package browser

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// step is one action of a scenario and what its result must show.
type step struct {
	do      func(ctx context.Context, s *Session) (Shot, error)
	console []string // substrings that must appear among the console lines
	urlEnds string
	mouse   string // when set, the reported mouse position
	greenAt [2]int // when set, the pixel there must be green (the click page's change)
}

func launch(u string) func(context.Context, *Session) (Shot, error) {
	return func(ctx context.Context, s *Session) (Shot, error) { return s.Launch(ctx, u) }
}
func click(x, y int) func(context.Context, *Session) (Shot, error) {
	return func(ctx context.Context, s *Session) (Shot, error) { return s.Click(ctx, x, y) }
}
func typeText(text string) func(context.Context, *Session) (Shot, error) {
	return func(ctx context.Context, s *Session) (Shot, error) { return s.Type(ctx, text) }
}
func scroll(down bool) func(context.Context, *Session) (Shot, error) {
	return func(ctx context.Context, s *Session) (Shot, error) { return s.Scroll(ctx, down) }
}

func TestSessionPages(t *testing.T) {
	needBrowser(t)
	srv := testSite(t)
	cases := []struct {
		name  string
		steps func(base string) []step
	}{
		{"console log", func(base string) []step {
			return []step{{do: launch(base + "/console.html"), console: []string{"[log] hello from the page 42", "[warning] careful"},
				urlEnds: "/console.html"}}
		}},
		{"uncaught error", func(base string) []step {
			return []step{{do: launch(base + "/throw.html"), console: []string{"[error] Uncaught Error: boom at load"}}}
		}},
		{"click changes the page", func(base string) []step {
			return []step{
				{do: launch(base + "/click.html")},
				{do: click(200, 125), console: []string{"[log] button clicked"}, mouse: "200,125", greenAt: [2]int{600, 500}},
			}
		}},
		{"typing into a form", func(base string) []step {
			return []step{
				{do: launch(base + "/form.html")},
				{do: click(100, 65), mouse: "100,65"},
				{do: typeText("Ada"), console: []string{"[log] value=A", "[log] value=Ada"}, mouse: "100,65"},
			}
		}},
		{"scrolling to reach a button", func(base string) []step {
			return []step{
				{do: launch(base + "/scroll.html")},
				{do: click(150, 330)}, // nothing there before scrolling
				{do: scroll(true)},
				{do: scroll(true)},
				{do: click(150, 330), console: []string{"reached the far button at scrollY=1200"}},
				{do: scroll(false)},
			}
		}},
		{"slow load", func(base string) []step {
			return []step{{do: launch(base + "/slow.html"), console: []string{"[log] slow script ran"}}}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := isolate(t)
			ctx := context.Background()
			s := NewSession(Options{})
			defer func() {
				if err := s.Close(); err != nil {
					t.Errorf("close: %v", err)
				}
				gctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				defer cancel()
				waitGone(gctx, t, dir)
			}()
			for i, st := range tc.steps(srv.URL) {
				shot, err := st.do(ctx, s)
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				checkShot(t, shot, DefaultWidth, DefaultHeight)
				for _, want := range st.console {
					if !hasLine(shot.Console, want) {
						t.Errorf("step %d: console %q lacks %q", i, shot.Console, want)
					}
				}
				if st.urlEnds != "" && (len(shot.URL) < len(st.urlEnds) || shot.URL[len(shot.URL)-len(st.urlEnds):] != st.urlEnds) {
					t.Errorf("step %d: URL %q, want …%s", i, shot.URL, st.urlEnds)
				}
				if st.mouse != "" && shot.Mouse != st.mouse {
					t.Errorf("step %d: mouse %q, want %q", i, shot.Mouse, st.mouse)
				}
				if st.greenAt != [2]int{} {
					if p := pixel(t, shot, st.greenAt[0], st.greenAt[1]); p != [3]uint8{0, 255, 0} {
						t.Errorf("step %d: pixel at %v is %v, want green after the click", i, st.greenAt, p)
					}
				}
			}
		})
	}
}

// TestConsoleSincePreviousAction: each action reports only what was written since the one
// before it.
func TestConsoleSincePreviousAction(t *testing.T) {
	needBrowser(t)
	srv := testSite(t)
	isolate(t)
	ctx := context.Background()
	s := NewSession(Options{})
	defer closeSession(t, s)
	first, err := s.Launch(ctx, srv.URL+"/click.html")
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Console) != 0 {
		t.Errorf("launch console = %q, want none", first.Console)
	}
	second, err := s.Click(ctx, 200, 125)
	if err != nil {
		t.Fatal(err)
	}
	third, err := s.Click(ctx, 800, 550) // empty space
	if err != nil {
		t.Fatal(err)
	}
	if len(second.Console) != 1 || len(third.Console) != 0 {
		t.Errorf("console after click = %q then %q, want one line then none", second.Console, third.Console)
	}
}

func TestSessionErrors(t *testing.T) {
	needBrowser(t)
	isolate(t)
	ctx := context.Background()
	s := NewSession(Options{Width: 640, Height: 480})
	defer closeSession(t, s)
	if _, err := s.Click(ctx, 1, 1); !errors.Is(err, ErrNotOpen) {
		t.Errorf("click before launch: %v, want ErrNotOpen", err)
	}
	srv := testSite(t)
	addr := srv.URL
	srv.Close() // nothing listens there now
	if _, err := s.Launch(ctx, addr+"/console.html"); !errors.Is(err, ErrNavigate) {
		t.Errorf("launch of a dead server: %v, want ErrNavigate", err)
	}
	if !s.Open() {
		t.Error("the session closed after a failed navigation")
	}
	live := testSite(t)
	shot, err := s.Launch(ctx, live.URL+"/console.html")
	if err != nil {
		t.Fatal(err)
	}
	checkShot(t, shot, 640, 480)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Click(cctx, 1, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("click with an ended context: %v, want context.Canceled", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s.Open() {
		t.Error("open after Close")
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestRenderAndConnection(t *testing.T) {
	needBrowser(t)
	srv := testSite(t)
	dir := isolate(t)
	ctx := context.Background()
	html, err := Renderer{}.Render(ctx, srv.URL+"/app.html")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html, "<h1>Built by script</h1>") {
		t.Errorf("rendered HTML lacks the script's heading: %.300s", html)
	}
	if err := TestConnection(ctx, Options{}); err != nil {
		t.Errorf("local browser: %v", err)
	}
	if err := TestConnection(ctx, Options{RemoteURL: srv.URL}); err == nil {
		t.Error("a web server passed for a DevTools endpoint")
	}
	if err := TestConnection(ctx, Options{ExecPath: "/nonexistent/chrome"}); !errors.Is(err, ErrNoBrowser) {
		t.Errorf("missing browser: %v, want ErrNoBrowser", err)
	}
	if n := chromiumUsing(t, dir); n != 0 {
		t.Errorf("%d Chromium processes left", n)
	}
}

func closeSession(t *testing.T, s *Session) {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Error(err)
	}
}
