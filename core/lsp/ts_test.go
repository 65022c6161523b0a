package lsp_test

import (
	"os"
	"path/filepath"
	"testing"
)

// needTSServer puts the repository's node_modules/.bin (npm ci installs
// typescript-language-server and typescript there) on PATH.
func needTSServer(t *testing.T) {
	t.Helper()
	bin, err := filepath.Abs(filepath.Join("..", "..", "node_modules", ".bin"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	need(t, "typescript-language-server")
}

// A TypeScript edit that breaks the types gets typescript-language-server's error; the fix
// clears it.
func TestTypeScriptDiagnostics(t *testing.T) {
	needTSServer(t)
	root := t.TempDir()
	write(t, filepath.Join(root, "tsconfig.json"), `{"compilerOptions": {"strict": true, "noEmit": true}}`+"\n")
	file := filepath.Join(root, "index.ts")
	write(t, file, "export function answer(): number {\n  return 42;\n}\n")
	breakAndFix(t, root, file, "export function answer(): number {\n  return \"forty-two\";\n}\n",
		"not assignable to type 'number'", 2, "export function answer(): number {\n  return 7;\n}\n")
}
