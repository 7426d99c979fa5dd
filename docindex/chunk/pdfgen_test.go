package chunk

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
)

// makePDF writes a minimal PDF 1.4 with one page per element of pages,
// each line of a page a row of Helvetica text. It is what
// testdata/two-pages.pdf was generated with (go test -run
// TestWritePDFFixture with WRITE_PDF_FIXTURE=1).
func makePDF(pages [][]string) []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.4\n")
	n := len(pages)
	// 1: catalog, 2: pages, 3: font, then per page: page object, content.
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	var kids []string
	for i := range pages {
		kids = append(kids, fmt.Sprintf("%d 0 R", 4+2*i))
	}
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	for i, lines := range pages {
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i))
		var c strings.Builder
		for k, l := range lines {
			l = strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(l)
			fmt.Fprintf(&c, "BT /F1 12 Tf 72 %d Td (%s) Tj ET\n", 720-18*k, l)
		}
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", c.Len(), c.String()))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

// fixturePages is the text of testdata/two-pages.pdf.
var fixturePages = [][]string{
	{"Quarterly report", "Revenue grew in the northern region."},
	{"Appendix", "The warehouse inventory was counted twice."},
}

func TestWritePDFFixture(t *testing.T) {
	if os.Getenv("WRITE_PDF_FIXTURE") == "" {
		t.Skip("set WRITE_PDF_FIXTURE=1 to rewrite testdata/two-pages.pdf")
	}
	if err := os.WriteFile("testdata/two-pages.pdf", makePDF(fixturePages), 0o644); err != nil {
		t.Fatal(err)
	}
}
