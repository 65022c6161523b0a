package commitmsg

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/llm"
)

// fakeProvider answers every request with its chunks and records the request.
type fakeProvider struct {
	chunks []string
	got    llm.Request
}

func (p *fakeProvider) Stream(_ context.Context, req llm.Request) (llm.Stream, error) {
	p.got = req
	return &fakeStream{chunks: p.chunks}, nil
}

func (p *fakeProvider) Models(context.Context) ([]string, error) { return nil, nil }

type fakeStream struct{ chunks []string }

func (s *fakeStream) Recv() (llm.Chunk, error) {
	if len(s.chunks) == 0 {
		return llm.Chunk{}, io.EOF
	}
	c := s.chunks[0]
	s.chunks = s.chunks[1:]
	return llm.Chunk{Text: c}, nil
}

func (s *fakeStream) Close() error { return nil }

func TestWrite(t *testing.T) {
	diff := "diff --git a/greet.txt b/greet.txt\n-hello\n+hello world\n"
	for _, tc := range []struct {
		name   string
		chunks []string
		want   string
	}{
		{"plain", []string{"Greet the ", "world\n"}, "Greet the world"},
		{"fenced", []string{"```\nGreet the world\n\nSay hello to everyone.\n```"}, "Greet the world\n\nSay hello to everyone."},
		{"quoted", []string{`"Greet the world"`}, "Greet the world"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &fakeProvider{chunks: tc.chunks}
			got, err := Write(context.Background(), p, "m1", diff)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("message %q, want %q", got, tc.want)
			}
			if p.got.Model != "m1" || p.got.System != prompt || len(p.got.Messages) != 1 || p.got.Messages[0].Content[0].Text != diff {
				t.Errorf("request %+v", p.got)
			}
		})
	}
}

func TestWriteRefusesNothingStagedAndCutsHugeDiffs(t *testing.T) {
	if _, err := Write(context.Background(), &fakeProvider{}, "m", " \n"); !errors.Is(err, ErrNoChanges) {
		t.Fatalf("empty diff: %v", err)
	}
	p := &fakeProvider{chunks: []string{"Big change"}}
	if _, err := Write(context.Background(), p, "m", strings.Repeat("+x\n", MaxDiff)); err != nil {
		t.Fatal(err)
	}
	if n := len(p.got.Messages[0].Content[0].Text); n > MaxDiff+100 {
		t.Errorf("the model got %d bytes of diff, want at most about %d", n, MaxDiff)
	}
}
