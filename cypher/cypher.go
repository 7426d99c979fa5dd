// Package cypher holds every Cypher statement vaultgraph runs, one statement
// per file (name.cypher), embedded into the binary and looked up by name.
//
// Statements are fixed text with $parameters: nothing is ever spliced into
// them at run time, so user text cannot change a query. Where Cypher cannot
// take a parameter (a label, a property name in an index-backed ORDER BY,
// a relationship direction), the store picks one of several fixed variants
// instead. The package imports nothing of ours; neo4jstore is its user, and
// a test there checks that every name it asks for exists and that no file
// is left unused.
package cypher

import (
	"embed"
	"io/fs"
	"slices"
	"strings"
)

//go:embed *.cypher
var files embed.FS

// suffix is the extension every statement file carries.
const suffix = ".cypher"

// statements maps a name (the file name without .cypher) to its text,
// loaded once at start-up; the embedded files cannot change afterwards.
var statements = load()

func load() map[string]string {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		panic("cypher: read embedded statements: " + err.Error()) // embedded: cannot fail at run time
	}
	out := make(map[string]string, len(entries))
	for _, e := range entries {
		body, err := fs.ReadFile(files, e.Name())
		if err != nil {
			panic("cypher: read " + e.Name() + ": " + err.Error())
		}
		out[strings.TrimSuffix(e.Name(), suffix)] = string(body)
	}
	return out
}

// Get returns the statement stored as name.cypher; ok is false when there
// is no such file.
func Get(name string) (text string, ok bool) {
	text, ok = statements[name]
	return text, ok
}

// MustGet returns the statement stored as name.cypher and panics when there
// is none. Meant for package-level variables, so that a misspelt name fails
// at start-up (and in every test) rather than on first use.
func MustGet(name string) string {
	text, ok := statements[name]
	if !ok {
		panic("cypher: no statement named " + name)
	}
	return text
}

// Names lists every statement name, sorted.
func Names() []string {
	names := make([]string, 0, len(statements))
	for n := range statements {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
