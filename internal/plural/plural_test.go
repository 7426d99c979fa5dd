package plural

import "testing"

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		noun string
		want string
	}{
		{0, "note", "0 notes"}, {1, "note", "1 note"}, {2, "problem", "2 problems"},
		{1, "memory", "1 memory"}, {3, "memory", "3 memories"}, {2, "day", "2 days"},
		{5, "contradicting pair", "5 contradicting pairs"}, {1, "warning", "1 warning"},
	} {
		if got := Count(c.n, c.noun); got != c.want {
			t.Errorf("Count(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}
