package hostbridge

import (
	"context"
	"io"
	"testing"

	hostv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/host/v1"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/tools"
)

// fakeEditor is the host end of a Connect stream: it answers every request with an empty
// result and can push events. Events and responses share one inbound channel, so they reach
// Serve in the order they were sent.
type fakeEditor struct {
	in  chan *cairnv1.ConnectRequest
	out chan *cairnv1.ConnectResponse
	ctx context.Context //nolint:containedctx // a fake of a gRPC stream, which carries its context
}

func (f *fakeEditor) Send(m *cairnv1.ConnectResponse) error {
	f.out <- m
	return nil
}

func (f *fakeEditor) Recv() (*cairnv1.ConnectRequest, error) {
	select {
	case m := <-f.in:
		return m, nil
	case <-f.ctx.Done():
		return nil, io.EOF
	}
}

func (f *fakeEditor) Context() context.Context { return f.ctx }

// connect serves a fake editor with client id on r; it returns once the welcome arrived.
func connect(t *testing.T, r *Registry, clientID string) (*fakeEditor, *hostv1.Welcome) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	f := &fakeEditor{in: make(chan *cairnv1.ConnectRequest, 16), out: make(chan *cairnv1.ConnectResponse, 16), ctx: ctx}
	served := make(chan struct{})
	t.Cleanup(func() {
		cancel()
		<-served
	})
	f.in <- &cairnv1.ConnectRequest{Message: &cairnv1.ConnectRequest_Hello{Hello: &hostv1.Hello{
		Client: "test", ClientId: clientID, DiffView: true, Terminal: true, Editor: true}}}
	go func() {
		defer close(served)
		if err := r.Serve(f); err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	welcome := (<-f.out).GetWelcome()
	go func() {
		for {
			select {
			case m := <-f.out:
				if req := m.GetRequest(); req != nil {
					resp := &hostv1.Response{Id: req.GetId(), Result: &hostv1.Response_Empty{Empty: &hostv1.Empty{}}}
					if n := req.GetNavigate(); n != nil {
						// The fake's providers answer with the asked place, and for references
						// one more line below it.
						places := []*hostv1.NavigateResult_Place{{Path: n.GetPath(), Line: n.GetLine()}}
						if n.GetKind() == hostv1.NavigateRequest_KIND_REFERENCES {
							places = append(places, &hostv1.NavigateResult_Place{Path: n.GetPath(), Line: n.GetLine() + 1})
						}
						resp.Result = &hostv1.Response_Navigate{Navigate: &hostv1.NavigateResult{Places: places}}
					}
					select {
					case f.in <- &cairnv1.ConnectRequest{Message: &cairnv1.ConnectRequest_Response{Response: resp}}:
					case <-ctx.Done():
						return
					}
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	return f, welcome
}

func (f *fakeEditor) decide(sessionID string) {
	f.in <- &cairnv1.ConnectRequest{Message: &cairnv1.ConnectRequest_Event{Event: &hostv1.Event{Event: &hostv1.Event_DiffDecision{
		DiffDecision: &hostv1.DiffDecision{SessionId: sessionID, Approved: true}}}}}
}

// countingDiffs is a fallback presenter that counts the diffs it was asked to open.
type countingDiffs struct{ opened int }

func (c *countingDiffs) Open(context.Context, string, string, bool) (tools.DiffSession, error) {
	c.opened++
	return nil, nil
}

type fallbackHost struct{ diffs *countingDiffs }

func (h fallbackHost) Diffs() tools.DiffPresenter { return h.diffs }
func (fallbackHost) Terminal() tools.Terminal     { return nil }
func (fallbackHost) Editor() tools.Editor         { return nil }

func TestWelcomeNamesTheHostByItsClientID(t *testing.T) {
	r := NewRegistry("test")
	_, first := connect(t, r, "window-1")
	_, second := connect(t, r, "window-1")
	_, anonymous := connect(t, r, "")
	if first.GetHostId() != "window-1" || second.GetHostId() != "window-1" {
		t.Fatalf("host ids %q, %q; want the client id", first.GetHostId(), second.GetHostId())
	}
	if first.GetConnectionId() == second.GetConnectionId() {
		t.Fatal("two connections share a connection id")
	}
	if anonymous.GetHostId() != anonymous.GetConnectionId() || anonymous.GetHostId() == "" {
		t.Fatalf("without a client id: host id %q, connection %q", anonymous.GetHostId(), anonymous.GetConnectionId())
	}
	if h, ok := r.Get("window-1"); !ok || h.ConnectionID() != second.GetConnectionId() {
		t.Fatal("the newest connection of the window does not serve it")
	}
}

func TestRefFallsBackWhileItsHostIsAway(t *testing.T) {
	r := NewRegistry("test")
	local := &countingDiffs{}
	ref := r.Ref("window-1", fallbackHost{local})
	ctx := context.Background()
	if _, err := ref.Diffs().Open(ctx, "/w/a.txt", "", true); err != nil || local.opened != 1 {
		t.Fatalf("no host connected: err %v, fallback opened %d", err, local.opened)
	}
	connect(t, r, "window-1")
	s, err := ref.Diffs().Open(ctx, "/w/b.txt", "", true)
	if err != nil || local.opened != 1 {
		t.Fatalf("host connected: err %v, fallback opened %d", err, local.opened)
	}
	if _, ok := s.(*diffSession); !ok {
		t.Fatalf("the diff did not open in the editor: %T", s)
	}
}

func TestDecisionsReachTheOwnerOfAFinalDiffOnly(t *testing.T) {
	cases := []struct {
		name string
		// prepare opens (or not) a diff for owner and returns the session id window-2 decides on.
		prepare func(t *testing.T, r *Registry, owner *Ref) string
		want    bool
	}{
		{name: "complete proposal", want: true, prepare: func(t *testing.T, _ *Registry, owner *Ref) string {
			s := open(t, owner)
			if err := s.Update(context.Background(), "new\n", true); err != nil {
				t.Fatal(err)
			}
			return s.(*diffSession).ID()
		}},
		{name: "still streaming", prepare: func(t *testing.T, _ *Registry, owner *Ref) string {
			s := open(t, owner)
			if err := s.Update(context.Background(), "ne", false); err != nil {
				t.Fatal(err)
			}
			return s.(*diffSession).ID()
		}},
		{name: "already saved", prepare: func(t *testing.T, _ *Registry, owner *Ref) string {
			s := open(t, owner)
			if err := s.Update(context.Background(), "new\n", true); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Save(context.Background()); err != nil {
				t.Fatal(err)
			}
			return s.(*diffSession).ID()
		}},
		{name: "unknown session", prepare: func(*testing.T, *Registry, *Ref) string { return "nope" }},
		{name: "another window's diff", prepare: func(t *testing.T, r *Registry, _ *Ref) string {
			connect(t, r, "window-1")
			s := open(t, r.Ref("window-1", fallbackHost{&countingDiffs{}}))
			if err := s.Update(context.Background(), "new\n", true); err != nil {
				t.Fatal(err)
			}
			return s.(*diffSession).ID()
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := NewRegistry("test")
			decided := make(chan *Ref, 4)
			r.OnDiffDecision = func(owner *Ref, _ bool) { decided <- owner }
			editor, _ := connect(t, r, "window-2")
			owner := r.Ref("window-2", fallbackHost{&countingDiffs{}})
			session := c.prepare(t, r, owner)
			editor.decide(session)
			// A decision on a session owned elsewhere, sent after it on the same stream, marks
			// the point where the first one has been handled.
			markerOwner := r.Ref("window-2", fallbackHost{&countingDiffs{}})
			marker := open(t, markerOwner)
			if err := marker.Update(context.Background(), "x", true); err != nil {
				t.Fatal(err)
			}
			editor.decide(marker.(*diffSession).ID())
			want := markerOwner // the first decision was dropped
			if c.want {
				want = owner
			}
			if first := <-decided; first != want {
				t.Fatalf("the first decision delivered went to %p (owner %p, marker %p); want %p", first, owner, markerOwner, want)
			}
		})
	}
}

func open(t *testing.T, owner *Ref) tools.DiffSession {
	t.Helper()
	s, err := owner.Diffs().Open(context.Background(), "/w/a.txt", "old\n", false)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Code navigation goes to the connected editor's providers; without one it is not offered, and
// the task asks the daemon's language servers instead.
func TestNavigateAsksTheConnectedEditor(t *testing.T) {
	r := NewRegistry("test")
	ref := r.Ref("window-1", fallbackHost{&countingDiffs{}})
	ctx := context.Background()
	if _, offered, err := ref.Navigate(ctx, false, "/w/a.go", 3, 5); offered || err != nil {
		t.Fatalf("no editor connected: offered %v, err %v", offered, err)
	}
	connect(t, r, "window-1")
	defs, offered, err := ref.Navigate(ctx, false, "/w/a.go", 3, 5)
	if !offered || err != nil || len(defs) != 1 || defs[0].Path != "/w/a.go" || defs[0].Line != 3 {
		t.Fatalf("definition: %v, %v, %v", defs, offered, err)
	}
	refs, _, err := ref.Navigate(ctx, true, "/w/a.go", 3, 5)
	if err != nil || len(refs) != 2 || refs[1].Line != 4 {
		t.Fatalf("references: %v, %v", refs, err)
	}
}
