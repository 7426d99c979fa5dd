package core

import (
	"errors"
	"testing"
)

func TestCheckNewName(t *testing.T) {
	ok := []string{"note.md", "Café", "a b", "2024-01-01 daily.md", "昨日のメモ.md", "concon.md", "con-note.md", "e\u0301"}
	for _, n := range ok {
		if err := CheckNewName(n); err != nil {
			t.Errorf("CheckNewName(%q) = %v, want nil", n, err)
		}
	}
	bad := []string{"", ".", "..", ".hidden", "CON", "nul", "nul.md", "Com1.txt", "LPT9", "com¹", "a\x00b", "tab\tname", "a\u202eb", "x\u2066y", "a:b", "a/b", `a\b`, "q?", "star*", " lead", "trail ", "dot.", string(make([]byte, 256))}
	for _, n := range bad {
		err := CheckNewName(n)
		if !errors.Is(err, ErrInvalidPath) {
			t.Errorf("CheckNewName(%q) = %v, want ErrInvalidPath", n, err)
		}
	}
	if err := CheckNewName("a\u202eb"); err == nil || err.Error() != `the name "a\u202eb" is not allowed: it contains an invisible text-direction character` {
		t.Errorf("message: %v", err)
	}
}
