package memory

import "testing"

func TestConflict(t *testing.T) {
	cases := []struct {
		a, b string
		want string
	}{
		{"User prefers dark mode", "User prefers light mode", "opposite terms: light / dark"},
		{"Always use type hints", "Never use type hints", "one negates what the other states"},
		{"User prefers dark mode", "User does not prefer dark mode", "one negates what the other states"},
		{"Don't deploy on Fridays", "Deploy on Fridays", "one negates what the other states"},
		{"Don't deploy on Fridays", "Never deploy on Fridays", ""}, // both negated
		{"User prefers dark mode", "The user prefers dark mode", ""},
		{"Use light and dark themes", "Use dark themes", ""}, // both halves in one text: not a flip
		// Issue 25: agreeing texts are not contradictions...
		{"Always run the tests before merging", "Never merge without running the tests", ""},
		{"Use tabs for indentation in Go files", "Go files are indented with tabs, not spaces", ""},
		{"Keep pull requests small", "Avoid large pull requests", ""},
		// ...and other numbers or versions are a conflict, never a duplicate.
		{"Project uses PostgreSQL 15", "Project uses PostgreSQL 16", "different values: 15 / 16"},
		{"Release every two weeks", "Release every week", "different values: 2 / none"},
		{"Always use tabs for indentation", "Always use spaces for indentation", "opposite terms: tabs / spaces"},
		{"Use camelCase for JSON fields", "Use snake_case for JSON fields", "different values: camelcase / snake case"},
		{"Use Jenkins for CI", "CI moved from Jenkins to GitHub Actions", "one says it changed: moved"},
		// Opposite words about different subjects do not conflict.
		{"Enable dark mode in the terminal", "Disable notifications during meetings", ""},
		{"Use tabs in Makefiles", "Use spaces in YAML files", ""},
	}
	for _, c := range cases {
		if got := conflict(c.a, c.b); got != c.want {
			t.Errorf("conflict(%q, %q) = %q, want %q", c.a, c.b, got, c.want)
		}
	}
}

func TestStem(t *testing.T) {
	for w, want := range map[string]string{"merging": "merg", "merge": "merg", "merged": "merg", "running": "run", "tests": "test",
		"indentation": "indent", "indented": "indent", "nightly": "night", "policies": "policy"} {
		if got := stem(w); got != want {
			t.Errorf("stem(%q) = %q, want %q", w, got, want)
		}
	}
}
