//go:build ignore

// godoc writes the package documentation of Go standard library packages
// as markdown notes, one per package: a real documentation corpus for the
// retrieval evaluation (embedding/eval). Doc comment headings become
// "## " sections.
//
//	go run scripts/eval/godoc.go -out embedding/testdata/hardeval/godoc pkg...
package main

import (
	"flag"
	"fmt"
	"go/doc"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

func main() {
	out := flag.String("out", "", "folder to write the notes into")
	flag.Parse()
	for _, path := range flag.Args() {
		if err := write(*out, path); err != nil {
			fmt.Fprintln(os.Stderr, "godoc:", path, err)
			os.Exit(1)
		}
	}
}

func write(out, path string) error {
	dir := filepath.Join(runtime.GOROOT(), "src", path)
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.ParseComments)
	if err != nil {
		return err
	}
	var best *doc.Package
	for name, p := range pkgs {
		if name == "main" || strings.HasSuffix(name, "_test") {
			continue
		}
		if d := doc.New(p, path, 0); best == nil || len(d.Doc) > len(best.Doc) {
			best = d
		}
	}
	if best == nil || strings.TrimSpace(best.Doc) == "" {
		return fmt.Errorf("no package documentation")
	}
	pr := comment.Printer{
		HeadingLevel: 2,
		HeadingID:    func(*comment.Heading) string { return "" },
		DocLinkURL:   func(*comment.DocLink) string { return "" },
	}
	md := func(s string) string { return string(pr.Markdown(best.Parser().Parse(s))) }
	var b strings.Builder
	b.WriteString(md(best.Doc))
	// Then each exported function and type with its documentation, as a
	// reference page lists them; a note stops growing at maxBytes.
	const maxBytes = 24000
	section := func(kind, name, text string) {
		if text == "" || b.Len() > maxBytes {
			return
		}
		fmt.Fprintf(&b, "\n## %s %s\n\n%s", kind, name, md(text))
	}
	for _, f := range best.Funcs {
		section("func", f.Name, f.Doc)
	}
	for _, t := range best.Types {
		section("type", t.Name, t.Doc)
		for _, f := range t.Funcs {
			section("func", f.Name, f.Doc)
		}
		for _, f := range t.Methods {
			section("method", t.Name+"."+f.Name, f.Doc)
		}
	}
	text := b.String()
	file := filepath.Join(out, strings.ReplaceAll(path, "/", "-")+".md")
	note := fmt.Sprintf("---\ntitle: %s\ntags: [go, stdlib]\n---\n# package %s\n\n%s", path, path, text)
	return os.WriteFile(file, []byte(note), 0o644)
}
