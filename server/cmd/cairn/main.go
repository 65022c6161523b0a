// Command cairn is the Cairn daemon and command line (see `cairn help`).
package main

import (
	"os"

	"github.com/cairnhq/cairn/server/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
