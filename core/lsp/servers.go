package lsp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/cairnhq/cairn/core/lazy"
)

// Language is one language Cairn can start a server for: the programs that serve it, tried in
// order, and the file extensions it covers with their LSP language ids.
type Language struct {
	// Name is the key of the languageServers setting ("go", "typescript", …).
	Name string
	// Programs are the commands tried in order (the first found runs): the program and its
	// arguments.
	Programs [][]string
	// Extensions maps a file extension (".go") to the document's languageId.
	Extensions map[string]string
	// Markers are files whose presence at a root's top says the root is of this language (a
	// task starting there starts its server early).
	Markers []string
}

// Languages are the languages Cairn knows.
var Languages = lazy.Value[[]Language]{New: func() []Language {
	return []Language{
		{Name: "go", Programs: [][]string{{"gopls"}}, Extensions: map[string]string{".go": "go"}, Markers: []string{"go.mod", "go.work"}},
		{Name: "typescript", Programs: [][]string{{"typescript-language-server", "--stdio"}},
			Extensions: map[string]string{".ts": "typescript", ".tsx": "typescriptreact", ".mts": "typescript", ".cts": "typescript",
				".js": "javascript", ".jsx": "javascriptreact", ".mjs": "javascript", ".cjs": "javascript"},
			Markers: []string{"tsconfig.json", "jsconfig.json"}},
		{Name: "python", Programs: [][]string{{"basedpyright-langserver", "--stdio"}, {"pyright-langserver", "--stdio"}},
			Extensions: map[string]string{".py": "python", ".pyi": "python"}, Markers: []string{"pyproject.toml", "setup.py", "pyrightconfig.json"}},
		{Name: "rust", Programs: [][]string{{"rust-analyzer"}}, Extensions: map[string]string{".rs": "rust"}, Markers: []string{"Cargo.toml"}},
		{Name: "c", Programs: [][]string{{"clangd"}},
			Extensions: map[string]string{".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp"},
			Markers:    []string{"compile_commands.json", "CMakeLists.txt"}},
	}
}}

// languageOf returns the language of the file at path and its languageId.
func languageOf(path string) (Language, string, bool) {
	ext := strings.ToLower(filepath.Ext(path))
	for _, l := range Languages.Get() {
		if id, ok := l.Extensions[ext]; ok {
			return l, id, true
		}
	}
	return Language{}, "", false
}

// program finds the command of lang's server for root: the languageServers setting's
// (an empty list turns the language off), else the first of its programs found on PATH or in
// the root's node_modules/.bin (where npm puts a project's own servers).
func program(lang Language, root string, configured map[string][]string) ([]string, bool) {
	if cmd, ok := configured[lang.Name]; ok {
		if len(cmd) == 0 {
			return nil, false
		}
		return cmd, true
	}
	for _, p := range lang.Programs {
		if path, err := exec.LookPath(p[0]); err == nil {
			return append([]string{path}, p[1:]...), true
		}
		local := filepath.Join(root, "node_modules", ".bin", p[0])
		if st, err := os.Stat(local); err == nil && !st.IsDir() {
			return append([]string{local}, p[1:]...), true
		}
	}
	return nil, false
}
