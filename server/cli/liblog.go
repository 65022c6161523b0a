package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"google.golang.org/grpc/grpclog"
)

// routeLibraryLogs sends what libraries log on their own to l, the process's daemon log:
// slog's default logger (mcp-go logs there where it takes no logger of ours), the log
// package's default logger (chromedp's default, among others), and gRPC's logger, which
// otherwise writes its errors to stderr. Stdout is the conversation in `cairn run` and the
// handshake in `cairn serve`; neither is a log (README, "Using it from the command line").
// It changes process globals: Main calls it once, before any gRPC use.
func routeLibraryLogs(l *slog.Logger) {
	slog.SetDefault(l) // also makes the log package write through l's handler
	grpclog.SetLoggerV2(grpcLog{l})
}

// libraryLogger is the daemon log of the command in args: stderr for `cairn serve` (whose
// stderr the editor keeps as the daemon's log), and for the other commands stderr only with
// CAIRN_DEBUG set, as their in-process daemon's own log is.
func libraryLogger(args []string, stderr io.Writer) *slog.Logger {
	if (len(args) > 0 && args[0] == "serve") || os.Getenv("CAIRN_DEBUG") != "" {
		return logger(stderr)
	}
	return slog.New(slog.DiscardHandler)
}

// grpcLog is gRPC's logger interface over slog. gRPC's info lines are connection chatter:
// they are debug lines here.
type grpcLog struct{ l *slog.Logger }

func (g grpcLog) log(level slog.Level, msg string) {
	g.l.Log(context.Background(), level, msg, "from", "grpc")
}

func (g grpcLog) Info(args ...any)   { g.log(slog.LevelDebug, fmt.Sprint(args...)) }
func (g grpcLog) Infoln(args ...any) { g.log(slog.LevelDebug, sprintln(args)) }
func (g grpcLog) Infof(format string, args ...any) {
	g.log(slog.LevelDebug, fmt.Sprintf(format, args...))
}
func (g grpcLog) Warning(args ...any)   { g.log(slog.LevelWarn, fmt.Sprint(args...)) }
func (g grpcLog) Warningln(args ...any) { g.log(slog.LevelWarn, sprintln(args)) }
func (g grpcLog) Warningf(format string, args ...any) {
	g.log(slog.LevelWarn, fmt.Sprintf(format, args...))
}
func (g grpcLog) Error(args ...any)   { g.log(slog.LevelError, fmt.Sprint(args...)) }
func (g grpcLog) Errorln(args ...any) { g.log(slog.LevelError, sprintln(args)) }
func (g grpcLog) Errorf(format string, args ...any) {
	g.log(slog.LevelError, fmt.Sprintf(format, args...))
}

// Fatal logs and exits, as gRPC's interface requires.
func (g grpcLog) Fatal(args ...any) { g.fatal(fmt.Sprint(args...)) }

// Fatalln logs and exits, as gRPC's interface requires.
func (g grpcLog) Fatalln(args ...any) { g.fatal(sprintln(args)) }

// Fatalf logs and exits, as gRPC's interface requires.
func (g grpcLog) Fatalf(format string, args ...any) { g.fatal(fmt.Sprintf(format, args...)) }

func (g grpcLog) fatal(msg string) {
	g.log(slog.LevelError, msg)
	os.Exit(exitFailure)
}

// V reports whether gRPC's verbose lines (level above 0) are wanted: only when debug lines are.
func (g grpcLog) V(level int) bool {
	return level <= 0 || g.l.Enabled(context.Background(), slog.LevelDebug)
}

// sprintln formats like fmt.Sprintln without the final newline: a log line ends itself.
func sprintln(args []any) string {
	s := fmt.Sprintln(args...)
	return s[:len(s)-1]
}
