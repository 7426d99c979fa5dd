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
	return g, nil
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
