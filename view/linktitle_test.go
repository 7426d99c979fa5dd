package view

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/memstore"
	"github.com/vaultgraph/vaultgraph/vault"
)

// TestMarkdownLinkTitlesResolve (issue 43): a markdown link with a title,
// in each form CommonMark allows, resolves in the rendered note to the
// note the vault resolved it to, as the same link without a title does;
// each note holds one link, so no other link of the note can stand in.
func TestMarkdownLinkTitlesResolve(t *testing.T) {
	cases := map[string]string{
		`[x](b.md "title")`:     "b.md",
		`[x](b.md 'title')`:     "b.md",
		`[x](b.md (title))`:     "b.md",
		`[x](b.md "a (b) c")`:   "b.md",
		`[x](b.md  "t" )`:       "b.md",
		"[x](b.md\t\"t\")":      "b.md",
		`[x]( b.md "t")`:        "b.md",
		`[x](b.md#h "t")`:       "b.md",
		`[x](<My Note.md> "t")`: "my note.md",
		`[x](My%20Note.md "t")`: "my note.md",
		`[x](sub/c(1).md "t")`:  "sub/c(1).md",
		`[x](b.md)`:             "b.md",
		`[x](b.md.bak "t")`:     "", // never b.md's (a ghost or a plain link, as the vault records it)
		`[x](nowhere.md "t")`:   "ghost",
	}
	dir := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("b.md", "b\n")
	write("My Note.md", "m\n")
	write("sub/c(1).md", "c\n")
	ids := map[string]string{}
	i := 0
	for link := range cases {
		i++
		id := fmt.Sprintf("case%02d.md", i)
		ids[link] = id
		write(id, "see "+link+"\n")
	}
	st := memstore.New()
	m, err := vault.NewMirror(vault.Config{Root: dir, Project: project, Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), NoProgress: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	for link, want := range cases {
		n, err := st.GetNote(t.Context(), project, ids[link])
		if err != nil {
			t.Fatal(err)
		}
		html, err := renderNote(n)
		if err != nil {
			t.Fatal(err)
		}
		switch want {
		case "":
			if strings.Contains(html, "data-id=") {
				t.Errorf("%s rendered %s, want it not resolved to a note", link, html)
			}
		case "ghost":
			if !strings.Contains(html, `class="ghost"`) {
				t.Errorf("%s rendered %s, want a ghost", link, html)
			}
		default:
			if !strings.Contains(html, `data-id="`+want+`"`) {
				t.Errorf("%s rendered %s, want it resolved to %s", link, html, want)
			}
		}
	}
}
