package task

import (
	"testing"
)

func TestAutoCondenseDue(t *testing.T) {
	for _, tc := range []struct {
		name    string
		tokens  int64
		window  int
		percent int
		want    bool
	}{
		{"unknown usage", 0, 2_000, 75, false},
		{"under 75%", 1_499, 2_000, 75, false},
		{"at 75%", 1_500, 2_000, 75, true},
		{"percent unset: 75%", 1_500, 2_000, 0, true},
		{"percent out of range: 75%", 1_499, 2_000, 150, false},
		{"50%", 1_000, 2_000, 50, true},
		{"capped at MaxAllowed (98k of 128k)", 98_000, 128_000, 100, true},
		{"under the cap", 97_999, 128_000, 100, false},
		{"unknown window = 128k", 96_000, 0, 75, true},
		{"unknown window under", 95_999, 0, 75, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := AutoCondenseDue(tc.tokens, tc.window, tc.percent); got != tc.want {
				t.Errorf("AutoCondenseDue(%d, %d, %d) = %v, want %v", tc.tokens, tc.window, tc.percent, got, tc.want)
			}
		})
	}
}
