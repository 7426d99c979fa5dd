package vaultgraph

import (
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var (
	semverRe  = regexp.MustCompile(`^(\d+)\.(\d+)\.(\d+)(-dev)?$`)
	releaseRe = regexp.MustCompile(`^## v(\d+\.\d+\.\d+) — \d{4}-\d{2}-\d{2}$`)
)

// less orders two X.Y.Z versions.
func less(t *testing.T, a, b string) bool {
	t.Helper()
	pa, pb := semverRe.FindStringSubmatch(a), semverRe.FindStringSubmatch(b)
	if pa == nil || pb == nil {
		t.Fatalf("not X.Y.Z: %q, %q", a, b)
	}
	for i := 1; i <= 3; i++ {
		x, _ := strconv.Atoi(pa[i])
		y, _ := strconv.Atoi(pb[i])
		if x != y {
			return x < y
		}
	}
	return false
}

// TestVersionAgreesWithChangelogAndServerJSON checks the VERSION file
// against the CHANGELOG and the registry entry, the rules of
// docs/RELEASING.md: at a release (VERSION X.Y.Z) the CHANGELOG's first
// heading is "vX.Y.Z — date" and server.json names X.Y.Z; between releases
// (X.Y.Z-dev) the first heading is Unreleased, X.Y.Z is newer than every
// release in the CHANGELOG, and server.json still names the latest release
// (the one published).
func TestVersionAgreesWithChangelogAndServerJSON(t *testing.T) {
	v := Version()
	m := semverRe.FindStringSubmatch(v)
	if m == nil {
		t.Fatalf("VERSION %q is not X.Y.Z or X.Y.Z-dev", v)
	}
	core := strings.TrimSuffix(v, "-dev")

	data, err := os.ReadFile("CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	var first string
	var releases []string
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "## ") {
			continue
		}
		if first == "" {
			first = line
		}
		if r := releaseRe.FindStringSubmatch(line); r != nil {
			releases = append(releases, r[1])
		}
	}
	if len(releases) == 0 {
		t.Fatal("CHANGELOG.md has no release heading (## vX.Y.Z — YYYY-MM-DD)")
	}

	var entry struct {
		Version string `json:"version"`
	}
	sj, err := os.ReadFile("server.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(sj, &entry); err != nil {
		t.Fatal(err)
	}

	if IsRelease() {
		if r := releaseRe.FindStringSubmatch(first); r == nil || r[1] != v {
			t.Errorf("VERSION is the release %s but the CHANGELOG's first heading is %q, want \"## v%s — YYYY-MM-DD\"", v, first, v)
		}
		if entry.Version != v {
			t.Errorf("server.json names %s, VERSION %s: run UPDATE_SERVERJSON=true go test ./scripts/dist", entry.Version, v)
		}
		return
	}
	if first != "## Unreleased" {
		t.Errorf("VERSION %s is between releases but the CHANGELOG's first heading is %q, want \"## Unreleased\"", v, first)
	}
	for _, r := range releases {
		if !less(t, r, core) {
			t.Errorf("VERSION %s must name a release newer than the CHANGELOG's v%s", v, r)
		}
	}
	if entry.Version != releases[0] {
		t.Errorf("server.json names %s, want the latest release of the CHANGELOG, %s", entry.Version, releases[0])
	}
}

func TestBuildVersion(t *testing.T) {
	saved := versionFile
	t.Cleanup(func() { versionFile = saved })
	cases := []struct {
		file, commit string
		dirty        bool
		want         string
	}{
		{"0.2.0-dev\n", "0123456789ab", false, "v0.2.0-dev+0123456789ab"},
		{"0.2.0-dev\n", "0123456789ab", true, "v0.2.0-dev+0123456789ab.dirty"},
		{"0.2.0-dev\n", "", false, "v0.2.0-dev"},
		{"0.2.0\n", "0123456789ab", false, "v0.2.0"},
		{"0.2.0\n", "0123456789ab", true, "v0.2.0+0123456789ab.dirty"},
		{"0.2.0", "", false, "v0.2.0"},
	}
	for _, c := range cases {
		versionFile = c.file
		if got := BuildVersion(c.commit, c.dirty); got != c.want {
			t.Errorf("VERSION %q, commit %q, dirty %v: %s, want %s", c.file, c.commit, c.dirty, got, c.want)
		}
	}
}
