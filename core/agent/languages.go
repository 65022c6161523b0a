package agent

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"unicode/utf16"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/lsp"
	"github.com/cairnhq/cairn/core/sandbox"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/nav"
	fswatch "github.com/cairnhq/cairn/core/watch"
)

// languagesNetworkRule names why a language server has no network, for the explanation of a
// denial: a server that needs a download reports diagnostics as unavailable instead.
const languagesNetworkRule = "language servers run without the network (README, \"Language servers\")"

// LanguageServers returns the daemon's language servers (core/lsp): started with the
// languageServers setting as it is at each start, in the command sandbox's workspace tier
// over the server's root with the network off (docs/sandbox.md) unless the user turned the
// sandbox off or none can be set up here, and told of file changes through watch.
func LanguageServers(settings func() config.Settings, dataDir string, watch *fswatch.Hub) *lsp.Manager {
	return lsp.New(lsp.Config{
		Commands: func() map[string][]string { return settings().LanguageServers },
		Confine: func(cmd *exec.Cmd, root string) error {
			b, why := ProcessSandbox(settings(), dataDir, []string{root})
			if b == nil || why != "" {
				return nil
			}
			temp := filepath.Join(os.TempDir(), "cairn-language-servers")
			if err := os.MkdirAll(temp, 0o700); err != nil {
				return err
			}
			b.Temp = temp
			return sandbox.Apply(cmd, b.Policy(sandbox.Workspace, false, languagesNetworkRule))
		},
		Watch: watch,
	})
}

// navigator is the code navigation of a task in roots: the editor's own providers when host
// is an editor that offers them, else the daemon's language servers (nil without either).
func (a *Assembler) navigator(roots []string, host tools.Host) nav.Navigator {
	var servers nav.Navigator
	if a.cfg.Languages != nil {
		servers = serverNavigator{m: a.cfg.Languages, roots: roots}
	}
	if ed, ok := host.(editorNavigation); ok {
		return editorNavigator{ed: ed, fallback: servers}
	}
	return servers
}

// editorNavigation is implemented by a host whose editor may answer code navigation with its
// own providers (server/hostbridge's Ref): column in UTF-16 code units; offered is false when
// no editor that offers it is connected now.
type editorNavigation interface {
	Navigate(ctx context.Context, references bool, abs string, line, column int) (locs []nav.Location, offered bool, err error)
}

// editorNavigator asks the editor, and fallback while no editor offers it.
type editorNavigator struct {
	ed       editorNavigation
	fallback nav.Navigator
}

func (n editorNavigator) Definition(ctx context.Context, abs string, line, column int) ([]nav.Location, bool, error) {
	return n.ask(ctx, false, abs, line, column)
}

func (n editorNavigator) References(ctx context.Context, abs string, line, column int) ([]nav.Location, bool, error) {
	return n.ask(ctx, true, abs, line, column)
}

func (n editorNavigator) ask(ctx context.Context, refs bool, abs string, line, column int) ([]nav.Location, bool, error) {
	locs, offered, err := n.ed.Navigate(ctx, refs, abs, line, utf16Column(abs, line, column))
	switch {
	case offered:
		return locs, true, err
	case n.fallback == nil:
		return nil, false, nil
	case refs:
		return n.fallback.References(ctx, abs, line, column)
	}
	return n.fallback.Definition(ctx, abs, line, column)
}

// utf16Column is the 1-based column in UTF-16 code units (the editor's) of abs's 1-based line
// and byte column; the byte column itself when the line cannot be read.
func utf16Column(abs string, line, column int) int {
	b, err := os.ReadFile(abs)
	if err != nil {
		return column
	}
	lines := strings.Split(string(b), "\n")
	if line < 1 || line > len(lines) {
		return column
	}
	prefix := lines[line-1][:min(max(column-1, 0), len(lines[line-1]))]
	return len(utf16.Encode([]rune(prefix))) + 1
}

// serverNavigator is nav.Navigator over core/lsp for one task's roots.
type serverNavigator struct {
	m     *lsp.Manager
	roots []string
}

func (n serverNavigator) Definition(ctx context.Context, abs string, line, column int) ([]nav.Location, bool, error) {
	return places(n.m.Definition(ctx, n.roots, abs, line, column))
}

func (n serverNavigator) References(ctx context.Context, abs string, line, column int) ([]nav.Location, bool, error) {
	return places(n.m.References(ctx, n.roots, abs, line, column))
}

func places(locs []lsp.Location, found bool, err error) ([]nav.Location, bool, error) {
	out := make([]nav.Location, len(locs))
	for i, l := range locs {
		out[i] = nav.Location{Path: l.Path, Line: l.Line}
	}
	return out, found, err
}
