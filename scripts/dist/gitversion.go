package main

import (
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// gitState is what git says about the commit being built.
type gitState struct {
	Commit string    // full hash of HEAD
	Time   time.Time // HEAD's commit time, UTC
	Dirty  bool      // tracked or untracked changes not ignored
	Tags   []string  // version tags (vX.Y.Z[-pre]) reachable from HEAD
	AtTag  []string  // version tags pointing at HEAD
}

// readGit asks git in dir about HEAD.
func readGit(dir string) (gitState, error) {
	var g gitState
	out, err := git(dir, "log", "-1", "--format=%H %ct")
	if err != nil {
		return g, err
	}
	hash, ct, _ := strings.Cut(strings.TrimSpace(out), " ")
	sec, err := strconv.ParseInt(ct, 10, 64)
	if err != nil {
		return g, fmt.Errorf("git log: commit time %q: %w", ct, err)
	}
	g.Commit, g.Time = hash, time.Unix(sec, 0).UTC()
	status, err := git(dir, "status", "--porcelain")
	if err != nil {
		return g, err
	}
	g.Dirty = strings.TrimSpace(status) != ""
	if g.Tags, err = versionTags(dir, "--merged", "HEAD"); err != nil {
		return g, err
	}
	if g.AtTag, err = versionTags(dir, "--points-at", "HEAD"); err != nil {
		return g, err
	}
	return g, nil
}

// versionTags lists the tags git selects with args that are versions.
func versionTags(dir string, args ...string) ([]string, error) {
	out, err := git(dir, append([]string{"tag", "--list", "v*"}, args...)...)
	if err != nil {
		return nil, err
	}
	var tags []string
	for _, t := range strings.Fields(out) {
		if _, ok := parseSemver(t); ok {
			tags = append(tags, t)
		}
	}
	return tags, nil
}

func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(ee.Stderr)))
		}
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return string(out), nil
}

// goVersion is the version the Go toolchain records for a build of this
// commit (Go 1.24+ with -buildvcs): the highest version tag at HEAD, else a
// pseudo-version after the highest tag reachable from HEAD, with "+dirty"
// when the tree has changes. Computing it here rather than letting go build
// stamp it makes it the same in a linked worktree and with
// GOFLAGS=-buildvcs=false, where the toolchain records nothing.
func (g gitState) goVersion() string {
	v := ""
	if best, ok := highest(g.AtTag); ok {
		v = best
	} else {
		v = pseudoVersion(g.Tags, g.Time, g.Commit)
	}
	if g.Dirty {
		v += "+dirty"
	}
	return v
}

// pseudoVersion follows Go's module pseudo-version forms: v0.0.0-T-H with
// no tag, vX.Y.(Z+1)-0.T-H after release vX.Y.Z, vX.Y.Z-pre.0.T-H after
// pre-release vX.Y.Z-pre (T: UTC commit time yyyymmddhhmmss, H: 12 hex).
func pseudoVersion(tags []string, t time.Time, commit string) string {
	rev := commit
	if len(rev) > 12 {
		rev = rev[:12]
	}
	stamp := t.UTC().Format("20060102150405")
	base, ok := highest(tags)
	if !ok {
		return "v0.0.0-" + stamp + "-" + rev
	}
	s, _ := parseSemver(base)
	if s.pre != "" {
		return fmt.Sprintf("v%d.%d.%d-%s.0.%s-%s", s.major, s.minor, s.patch, s.pre, stamp, rev)
	}
	return fmt.Sprintf("v%d.%d.%d-0.%s-%s", s.major, s.minor, s.patch+1, stamp, rev)
}

// semver is a parsed vMAJOR.MINOR.PATCH[-PRE] (build metadata is refused:
// tags carry none).
type semver struct {
	major, minor, patch int
	pre                 string
}

func parseSemver(v string) (semver, bool) {
	var s semver
	rest, ok := strings.CutPrefix(v, "v")
	if !ok {
		return s, false
	}
	core, pre, hasPre := strings.Cut(rest, "-")
	if hasPre && (pre == "" || strings.ContainsAny(pre, "+")) || strings.Contains(core, "+") {
		return s, false
	}
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return s, false
	}
	nums := [3]int{}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || (len(p) > 1 && p[0] == '0') || strings.HasPrefix(p, "+") {
			return s, false
		}
		nums[i] = n
	}
	for _, id := range strings.Split(pre, ".") {
		if hasPre && id == "" {
			return s, false
		}
	}
	return semver{nums[0], nums[1], nums[2], pre}, true
}

// compareSemver orders two parsed versions by semantic-version precedence.
func compareSemver(a, b semver) int {
	for _, d := range []int{a.major - b.major, a.minor - b.minor, a.patch - b.patch} {
		if d != 0 {
			return d
		}
	}
	switch {
	case a.pre == b.pre:
		return 0
	case a.pre == "":
		return 1 // a release sorts after its pre-releases
	case b.pre == "":
		return -1
	}
	ai, bi := strings.Split(a.pre, "."), strings.Split(b.pre, ".")
	for i := 0; i < len(ai) && i < len(bi); i++ {
		an, aErr := strconv.Atoi(ai[i])
		bn, bErr := strconv.Atoi(bi[i])
		switch {
		case aErr == nil && bErr == nil:
			if an != bn {
				return an - bn
			}
		case aErr == nil:
			return -1 // numeric identifiers sort before alphanumeric ones
		case bErr == nil:
			return 1
		default:
			if c := strings.Compare(ai[i], bi[i]); c != 0 {
				return c
			}
		}
	}
	return len(ai) - len(bi)
}

// highest returns the highest of the version tags.
func highest(tags []string) (string, bool) {
	best, found := "", false
	var bestV semver
	for _, t := range tags {
		v, ok := parseSemver(t)
		if !ok {
			continue
		}
		if !found || compareSemver(v, bestV) > 0 {
			best, bestV, found = t, v, true
		}
	}
	return best, found
}
