package keyword

import (
	"strings"
	"testing"
	"unsafe"
)

// The index must not keep a document's text alive: its term keys are
// copies, not substrings of the lowercased text (which, for a 100k-note
// vault, held 250 MB).
func TestPutKeepsNoSubstringOfTheText(t *testing.T) {
	ix := NewIndex()
	// Lowercase, so strings.ToLower returns text itself and an uncopied
	// term would be a substring of it.
	text := strings.Repeat("alpha beta gamma delta ", 200)
	ix.Put("a", text)
	for term := range ix.terms {
		p := uintptr(unsafe.Pointer(unsafe.StringData(term)))
		start := uintptr(unsafe.Pointer(unsafe.StringData(text)))
		if p >= start && p < start+uintptr(len(text)) {
			t.Fatalf("term %q points into the document's text", term)
		}
	}
	if len(ix.terms) != 4 {
		t.Fatalf("terms = %d, want 4", len(ix.terms))
	}
}
