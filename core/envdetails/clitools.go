package envdetails

import (
	"os/exec"
	"slices"
	"sync"
)

// cliTools are the programs the first turn reports when they are on PATH: version control,
// language tool chains, package managers, containers and clouds, and everyday command-line
// helpers — what decides which commands the model can propose.
var cliTools = []string{
	"git", "gh", "go", "node", "npm", "npx", "yarn", "pnpm", "bun", "deno",
	"python3", "python", "pip", "pip3", "uv", "poetry", "cargo", "rustc",
	"java", "mvn", "gradle", "dotnet", "ruby", "bundle", "php", "composer",
	"make", "cmake", "gcc", "clang", "docker", "podman", "kubectl", "helm",
	"terraform", "aws", "gcloud", "az", "rg", "fd", "jq", "curl", "wget",
	"sqlite3", "psql", "mysql", "redis-cli",
}

// detector probes cliTools once.
type detector struct {
	look  func(name string) (string, error)
	names []string
	once  sync.Once
	found []string // written once inside once.Do
}

var daemonTools = &detector{look: exec.LookPath, names: cliTools}

// DetectCLITools returns the common tools found on PATH, in a fixed order. The probes run in
// parallel, once per process: PATH does not change under a running daemon often enough to pay
// for probing every task.
func DetectCLITools() []string { return daemonTools.detect() }

func (d *detector) detect() []string {
	d.once.Do(func() {
		ok := make([]bool, len(d.names))
		var wg sync.WaitGroup
		for i, name := range d.names {
			wg.Go(func() {
				_, err := d.look(name)
				ok[i] = err == nil
			})
		}
		wg.Wait()
		for i, name := range d.names {
			if ok[i] {
				d.found = append(d.found, name)
			}
		}
	})
	return slices.Clone(d.found)
}
