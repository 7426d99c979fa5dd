package resources

import "testing"

func TestURIRoundTrips(t *testing.T) {
	for id, uri := range map[string]string{
		"home.md":                     "vault://note/home.md",
		"concepts/bm25.md":            "vault://note/concepts/bm25.md",
		"my notes/idée #1?.md":        "vault://note/my%20notes/id%C3%A9e%20%231%3F.md",
		"projects/vault migration.md": "vault://note/projects/vault%20migration.md",
	} {
		if got := URI(id); got != uri {
			t.Errorf("URI(%q) = %q, want %q", id, got, uri)
		}
		if got := idOf(uri); got != id {
			t.Errorf("idOf(%q) = %q, want %q", uri, got, id)
		}
	}
	for _, bad := range []string{"", "vault://note/", "file:///etc/passwd", "vault://other/x.md", "vault://note/%zz"} {
		if got := idOf(bad); got != "" {
			t.Errorf("idOf(%q) = %q, want none", bad, got)
		}
	}
}

func TestSubscriptionsHearOfTheNoteInAnyIDForm(t *testing.T) {
	for uri, want := range map[string]string{
		"vault://note/concepts/bm25.md": "vault://note/concepts/bm25.md",
		"vault://note/Concepts/BM25":    "vault://note/concepts/bm25.md",
		"vault://note/my%20Notes/A.md":  "vault://note/my%20notes/a.md",
		"https://elsewhere/x":           "https://elsewhere/x",
	} {
		if got := canonical(uri); got != want {
			t.Errorf("canonical(%q) = %q, want %q", uri, got, want)
		}
	}
}
