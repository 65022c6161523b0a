package envdetails

import (
	"embed"
	"strings"
)

// Model-facing text, written once and embedded (docs/conventions.md, "Comments and model-facing
// text").
//
//go:embed text/*.md
var textFS embed.FS

var (
	planModeText         = load("plan_mode")
	actModeText          = load("act_mode")
	recentlyModifiedText = load("recently_modified")
	noVisibleText        = load("no_visible")
	noTabsText           = load("no_tabs")
	listRefusedText      = load("list_refused")
	listFailedText       = load("list_failed")
	noToolsText          = load("no_tools")
	runningForText       = load("running_for")
	listeningText        = load("listening")
)

func load(name string) string {
	b, err := textFS.ReadFile("text/" + name + ".md")
	if err != nil {
		panic("envdetails: missing embedded text " + name) // caught by every test of the package
	}
	return strings.TrimSpace(string(b))
}
