package memory

import "testing"

func TestConflict(t *testing.T) {
	cases := []struct {
		a, b string
		want string
	}{
		{"User prefers dark mode", "User prefers light mode", "opposite terms: light / dark"},
		{"Always use type hints", "Never use type hints", "opposite terms: always / never"},
		{"User prefers dark mode", "User does not prefer dark mode", "one negates what the other states"},
		{"Don't deploy on Fridays", "Deploy on Fridays", "one negates what the other states"},
		{"Don't deploy on Fridays", "Never deploy on Fridays", ""}, // both negated
		{"User prefers dark mode", "The user prefers dark mode", ""},
		{"Use light and dark themes", "Use dark themes", ""}, // both halves in one text: not a flip
	}
	for _, c := range cases {
		if got := conflict(c.a, c.b); got != c.want {
			t.Errorf("conflict(%q, %q) = %q, want %q", c.a, c.b, got, c.want)
		}
	}
}
