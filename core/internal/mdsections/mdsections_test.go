package mdsections

import (
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	md := "## first\nOne line.\n\n## second  \n\n  Two\nlines.\n\n# Not a section heading\n## third\n"
	got := Split(md)
	want := map[string]string{
		"first":  "One line.",
		"second": "Two\nlines.\n\n# Not a section heading",
		"third":  "",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d sections %q, want %d", len(got), got, len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("section %q = %q, want %q", k, got[k], v)
		}
	}
}

func TestSplitDropsThePreamble(t *testing.T) {
	got := Split("# Texts of a tool\n\nNotes for editors.\n\n## only\nbody\n")
	if len(got) != 1 || got["only"] != "body" {
		t.Fatalf("got %q, want only the section after the title", got)
	}
	if len(Split("no headings at all")) != 0 {
		t.Fatal("a text without headings has no sections")
	}
}

func TestSplitKeepsHashesInsideALine(t *testing.T) {
	got := Split("## k\nsee ## this and ### that\n### sub\nstill k\n")
	if got["k"] != "see ## this and ### that\n### sub\nstill k" {
		t.Fatalf("got %q", got["k"])
	}
}

func TestTemplates(t *testing.T) {
	ts := Templates("# Title\n\n## greet\nHello {{.Name}}.\n\n## bye\nBye.\n")
	if len(ts) != 2 {
		t.Fatalf("got %d templates, want 2", len(ts))
	}
	var b strings.Builder
	if err := ts["greet"].Execute(&b, struct{ Name string }{"Ada"}); err != nil {
		t.Fatal(err)
	}
	if b.String() != "Hello Ada." || ts["greet"].Name() != "greet" {
		t.Fatalf("rendered %q from template %q", b.String(), ts["greet"].Name())
	}
}

func TestTemplatesPanicsOnABrokenSection(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("a section that is not a template must panic")
		}
	}()
	Templates("## broken\n{{.Name\n")
}

func TestRender(t *testing.T) {
	ts := Templates("## greet\nHello {{.Name}}.\n\n## broken\n{{.Missing}}\n")
	if out, ok := ts.Render("greet", struct{ Name string }{"Ada"}); !ok || out != "Hello Ada." {
		t.Fatalf("Render(greet) = %q, %v", out, ok)
	}
	if out, ok := ts.Render("absent", nil); ok || out != "" {
		t.Fatalf("a missing section must report false, got %q, %v", out, ok)
	}
	if out, ok := ts.Render("broken", struct{ Name string }{"Ada"}); ok || out != "" {
		t.Fatalf("a template that fails on its data must report false, got %q, %v", out, ok)
	}
}
