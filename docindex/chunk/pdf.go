package chunk

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/ledongthuc/pdf"
)

// PDF cuts a PDF by page: the text of each page (read row by row, words
// joined by spaces) is split by the size rules, and every piece records
// its 1-based page number. Pages without text (scans, images) give no
// piece. A file that is not a readable PDF is an error; the PDF library
// panics on some malformed files, and that panic becomes an error too.
func PDF(data []byte) (pieces []Piece, err error) {
	defer func() {
		if r := recover(); r != nil {
			pieces, err = nil, fmt.Errorf("chunk: malformed pdf: %v", r)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("chunk: read pdf: %w", err)
	}
	n := r.NumPage()
	for i := 1; i <= n; i++ {
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		text, err := pageText(p)
		if err != nil {
			return nil, fmt.Errorf("chunk: pdf page %d: %w", i, err)
		}
		for _, c := range pack(paragraphs(text), "\n\n") {
			pieces = append(pieces, Piece{Content: c, Page: i})
		}
	}
	return pieces, nil
}

// pageText returns a page's text, one line per row of the page.
func pageText(p pdf.Page) (string, error) {
	rows, err := p.GetTextByRow()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, row := range rows {
		var words []string
		for _, w := range row.Content {
			if s := strings.TrimSpace(w.S); s != "" {
				words = append(words, s)
			}
		}
		if len(words) > 0 {
			b.WriteString(strings.Join(words, " "))
			b.WriteString("\n")
		}
	}
	return b.String(), nil
}
