package cli

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// A daemon that went away is said in one sentence, never gRPC's transport text.
func TestStatusTextOfADaemonGone(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"stream cut", status.Error(codes.Unavailable, "error reading from server: EOF"), goneText},
		{"dial refused", status.Error(codes.Unavailable, `connection error: desc = "transport: Error while dialing: dial unix /x/daemon.sock: connect: connection refused"`), goneText},
		{"other codes keep their message", status.Error(codes.NotFound, "no such task"), "no such task"},
		{"plain errors", errors.New("boom"), "boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := statusText(tc.err)
			if got != tc.want || strings.Contains(got, "EOF") {
				t.Fatalf("statusText = %q, want %q", got, tc.want)
			}
		})
	}
}
