// Command protogen writes the files made from the command registry
// (commands/entries.go): the VS Code extension's protocol types
// (editors/vscode/src/protocol.gen.ts), the Neovim plugin's table of
// command names (editors/neovim/lua/rewind/protocol.lua) and the generated
// parts of docs/PROTOCOL.md. It runs with "go generate ./commands"; a test
// fails while any of them is stale.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rewind-lsp/rewind-lsp/commands"
)

// Where the generated files go, relative to the repository.
const (
	tsFile  = "editors/vscode/src/protocol.gen.ts"
	luaFile = "editors/neovim/lua/rewind/protocol.lua"
	mdFile  = "docs/PROTOCOL.md"
)

func main() {
	root := flag.String("root", "..", "the repository")
	flag.Parse()
	files, err := generate(*root)
	if err == nil {
		for name, data := range files {
			p := filepath.Join(*root, name)
			if old, _ := os.ReadFile(p); bytes.Equal(old, data) {
				continue
			}
			if err = os.WriteFile(p, data, 0o644); err != nil {
				break
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "protogen:", err)
		os.Exit(1)
	}
}

// generate returns every generated file by its path in the repository at
// root.
func generate(root string) (map[string][]byte, error) {
	m := newModel(root)
	for _, e := range commands.Entries() {
		a, r := e.Types()
		if err := m.add(a); err != nil {
			return nil, fmt.Errorf("%s: %w", e.Info().Name, err)
		}
		if err := m.add(r); err != nil {
			return nil, fmt.Errorf("%s: %w", e.Info().Name, err)
		}
	}
	doc, err := os.ReadFile(filepath.Join(root, mdFile))
	if err != nil {
		return nil, err
	}
	md, err := fill(string(doc), blocks(m))
	if err != nil {
		return nil, err
	}
	tsModel := newModel(root)
	for _, e := range publicEntries() {
		a, r := e.Types()
		tsModel.add(a)
		tsModel.add(r)
	}
	return map[string][]byte{
		tsFile:  []byte(typeScript(tsModel)),
		luaFile: []byte(lua()),
		mdFile:  []byte(md),
	}, nil
}
