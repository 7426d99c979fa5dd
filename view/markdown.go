package view

import (
	"bytes"
	"html"
	"net/url"
	"strings"

	"github.com/vaultgraph/vaultgraph/core"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// A note is rendered in the server by goldmark (CommonMark with GitHub's
// tables, strikethrough, task lists and autolinks), not in the page: its
// wikilinks then resolve exactly as the vault resolved them, from the
// note's own links (Raw -> Target, as the store holds them), with no
// second implementation of Obsidian's rules in JavaScript. Raw HTML in a
// note is left out and dangerous URLs (javascript:...) are dropped
// (goldmark's safe mode), so the page can insert the result as it is.
var markdown = goldmark.New(
	goldmark.WithExtensions(extension.GFM),
	goldmark.WithParserOptions(parser.WithInlineParsers(util.Prioritized(wikilinkParser{}, 150))),
	goldmark.WithRendererOptions(gmhtml.WithHardWraps(), renderer.WithNodeRenderers(util.Prioritized(wikilinkRenderer{}, 100))),
)

// renderNote renders a note's content as HTML, its links pointing at the
// notes they resolve to (#note=ID, data-id) or marked as ghosts.
func renderNote(n *core.Note) (string, error) {
	byRaw := make(map[string]core.Link, len(n.Links))
	for _, l := range n.Links {
		if _, ok := byRaw[l.Raw]; !ok {
			byRaw[l.Raw] = l
		}
	}
	src := []byte(n.Content)
	doc := markdown.Parser().Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(nd ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch x := nd.(type) {
		case *wikilinkNode:
			if l, ok := byRaw[x.raw]; ok {
				x.target, x.key = l.Target, l.Key
			} else {
				x.key = strings.ToLower(x.name)
			}
		case *ast.Link:
			resolveMarkdownLink(x, n.Links)
		}
		return ast.WalkContinue, nil
	})
	var buf bytes.Buffer
	if err := markdown.Renderer().Render(&buf, src, doc); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// resolveMarkdownLink points a markdown link to a local .md file at the
// note it resolves to, found among the note's links by its destination:
// the one of the link as the vault recorded it (Raw), read without its
// title (`[x](b.md "title")`, 'title', (title)) and surrounding blanks.
func resolveMarkdownLink(x *ast.Link, links []core.Link) {
	dest := string(x.Destination)
	if u, err := url.Parse(dest); err != nil || u.Scheme != "" || u.Host != "" || strings.HasPrefix(dest, "#") {
		return
	}
	for _, l := range links {
		d, ok := rawDestination(l.Raw)
		if !ok || !sameDestination(d, dest) {
			continue
		}
		if l.Target == "" {
			x.Destination = []byte("#ghost=" + url.QueryEscape(l.Key))
			x.SetAttributeString("class", []byte("ghost"))
			return
		}
		x.Destination = []byte("#note=" + url.QueryEscape(l.Target))
		x.SetAttributeString("data-id", []byte(l.Target))
		x.SetAttributeString("class", []byte("wikilink"))
		return
	}
}

// rawDestination returns the destination of a markdown link as written,
// "[text](dest "title")" or "[text](<dest> 'title')": what follows the
// first "](", blanks skipped, up to the blank before the title or the
// closing ")" (parentheses inside the destination balanced), or between
// <>. False when raw is not a markdown link.
func rawDestination(raw string) (string, bool) {
	i := strings.Index(raw, "](")
	if i < 0 {
		return "", false
	}
	d := strings.TrimLeft(raw[i+2:], " \t\n")
	if strings.HasPrefix(d, "<") {
		j := strings.IndexByte(d, '>')
		if j < 0 {
			return "", false
		}
		return d[1:j], true
	}
	depth := 0
	for j, c := range d {
		switch c {
		case ' ', '\t', '\n':
			return d[:j], true
		case '(':
			depth++
		case ')':
			if depth == 0 {
				return d[:j], true
			}
			depth--
		}
	}
	return "", false
}

// sameDestination compares a destination as written with goldmark's
// (which has backslash escapes and entities resolved), also once
// percent-decoded.
func sameDestination(raw, parsed string) bool {
	if raw == parsed {
		return true
	}
	a, err1 := url.PathUnescape(raw)
	b, err2 := url.PathUnescape(parsed)
	return err1 == nil && err2 == nil && a == b
}

var kindWikilink = ast.NewNodeKind("Wikilink")

// wikilinkNode is [[name#heading|alias]] or ![[...]] as written (raw),
// and, once resolved, the note it points at (target) or its key.
type wikilinkNode struct {
	ast.BaseInline
	raw, name, shown string
	embed            bool
	target, key      string
}

func (n *wikilinkNode) Kind() ast.NodeKind { return kindWikilink }

func (n *wikilinkNode) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"raw": n.raw}, nil)
}

type wikilinkParser struct{}

func (wikilinkParser) Trigger() []byte { return []byte{'[', '!'} }

// Parse reads [[...]] or ![[...]] on one line; anything else is left to
// the other parsers (links, images).
func (wikilinkParser) Parse(_ ast.Node, block text.Reader, _ parser.Context) ast.Node {
	line, _ := block.PeekLine()
	i := 0
	if len(line) > 0 && line[0] == '!' {
		i = 1
	}
	if !bytes.HasPrefix(line[i:], []byte("[[")) {
		return nil
	}
	end := bytes.Index(line[i+2:], []byte("]]"))
	if end <= 0 {
		return nil
	}
	inner := string(line[i+2 : i+2+end])
	if strings.ContainsAny(inner, "[\n") {
		return nil
	}
	n := &wikilinkNode{raw: string(line[:i+2+end+2]), embed: i == 1}
	target, alias, hasAlias := strings.Cut(inner, "|")
	name, heading, _ := strings.Cut(target, "#")
	n.name = strings.TrimSpace(name)
	switch {
	case hasAlias && strings.TrimSpace(alias) != "":
		n.shown = strings.TrimSpace(alias)
	case heading != "" && n.name != "":
		n.shown = n.name + " › " + strings.TrimSpace(heading)
	case heading != "":
		n.shown = strings.TrimSpace(heading)
	default:
		n.shown = n.name
	}
	block.Advance(i + 2 + end + 2)
	return n
}

type wikilinkRenderer struct{}

func (wikilinkRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindWikilink, func(w util.BufWriter, _ []byte, nd ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		n := nd.(*wikilinkNode)
		class := "wikilink"
		if n.embed {
			class += " embed"
		}
		if n.target == "" {
			_, _ = w.WriteString(`<a class="` + class + ` ghost" href="#ghost=` + url.QueryEscape(n.key) + `" title="no note yet: ` +
				html.EscapeString(n.key) + `">` + html.EscapeString(n.shown) + `</a>`)
			return ast.WalkSkipChildren, nil
		}
		_, _ = w.WriteString(`<a class="` + class + `" href="#note=` + url.QueryEscape(n.target) + `" data-id="` +
			html.EscapeString(n.target) + `">` + html.EscapeString(n.shown) + `</a>`)
		return ast.WalkSkipChildren, nil
	})
}
