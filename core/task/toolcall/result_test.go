package toolcall

import (
	"context"
	"testing"
)

func TestExpandAnswers(t *testing.T) {
	bracket := func(_ context.Context, s string) string { return "[" + s + "]" }
	for _, tc := range []struct{ in, want string }{
		{"<answer>\n/smol now\n</answer>", "<answer>\n[/smol now]\n</answer>"},
		{"Feedback follows.\n<feedback>\n/compact\n</feedback>", "Feedback follows.\n<feedback>\n[/compact]\n</feedback>"},
		{"The user accepted the result.", "The user accepted the result."},
		{"<answer>\n</answer>", "<answer>\n</answer>"}, // no room: left alone
	} {
		if got := expandAnswers(context.Background(), bracket, tc.in); got != tc.want {
			t.Errorf("expandAnswers(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
