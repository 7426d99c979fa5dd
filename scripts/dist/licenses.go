package main

import (
	"bytes"
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/google/licensecheck"
)

// minCoverage is how much of a licence file, in percent of its words,
// licensecheck must match for its licences to count as the file's. A
// licence text with a copyright line and a title is 95-100 %; below 70 %
// the file holds more than a licence and is left undetected (NOASSERTION).
const minCoverage = 70

// licenseFile is one licence or notice file of a module.
type licenseFile struct {
	Name string // file name inside the module, e.g. LICENSE
	Text []byte
}

// moduleLicense is what dist knows about one module's licence: the SPDX
// expression licensecheck detected in its licence files ("" when none
// could be), and the files' texts for the notices.
type moduleLicense struct {
	Path, Version string
	SPDX          string
	Files         []licenseFile
}

// isLicenseFile says whether a module's top-level file is a licence or
// notice file: LICENSE, LICENCE, COPYING, NOTICE, UNLICENSE or PATENTS, maybe
// with a suffix (LICENSE-MIT) and a text extension (.md, .txt), any case.
func isLicenseFile(name string) bool {
	n := strings.ToUpper(name)
	base, ext, _ := strings.Cut(n, ".")
	if ext != "" && ext != "MD" && ext != "TXT" && ext != "RST" {
		return false
	}
	for _, p := range []string{"LICENSE", "LICENCE", "COPYING", "NOTICE", "UNLICENSE", "PATENTS"} {
		if base == p || strings.HasPrefix(base, p+"-") || strings.HasPrefix(base, p+"_") {
			return true
		}
	}
	return false
}

// detectLicense returns the SPDX expression of the licences licensecheck
// finds in text ("" below minCoverage): one ID, or several joined with AND
// (a file that holds several licences grants all of them).
func detectLicense(text []byte) string {
	cov := licensecheck.Scan(text)
	if cov.Percent < minCoverage {
		return ""
	}
	var ids []string
	for _, m := range cov.Match {
		if !m.IsURL && !slices.Contains(ids, m.ID) {
			ids = append(ids, m.ID)
		}
	}
	return strings.Join(ids, " AND ")
}

// readLicenses reads the licence and notice files at the top of dir and
// detects the licence from the licence files (notices and PATENTS are
// carried along, not scanned).
func readLicenses(dir string) (spdx string, files []licenseFile, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", nil, err
	}
	var ids []string
	for _, e := range entries {
		if e.IsDir() || !isLicenseFile(e.Name()) {
			continue
		}
		text, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return "", nil, err
		}
		files = append(files, licenseFile{Name: e.Name(), Text: text})
		up := strings.ToUpper(e.Name())
		if strings.HasPrefix(up, "NOTICE") || strings.HasPrefix(up, "PATENTS") {
			continue
		}
		if id := detectLicense(text); id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return strings.Join(ids, " AND "), files, nil
}

// licenses finds, for every module linked into the binary at path (its
// build information), the module's folder in the module cache (go mod
// download, which reads the cache and fetches only what is missing) and
// reads its licences. The Go standard library comes first, from GOROOT.
func licenses(goBin, path string) ([]moduleLicense, error) {
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("licenses: %w", err)
	}
	var mods []*debug.Module
	args := []string{"mod", "download", "-json"}
	for _, d := range bi.Deps {
		m := d
		if d.Replace != nil {
			m = d.Replace
		}
		mods = append(mods, m)
		args = append(args, m.Path+"@"+m.Version)
	}
	dirs := map[string]string{}
	if len(mods) > 0 {
		cmd := exec.Command(goBin, args...)
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly")
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("go mod download: %w", err)
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		for {
			var m struct{ Path, Version, Dir, Error string }
			if err := dec.Decode(&m); err == io.EOF {
				break
			} else if err != nil {
				return nil, fmt.Errorf("go mod download: %w", err)
			}
			if m.Error != "" {
				return nil, fmt.Errorf("go mod download %s@%s: %s", m.Path, m.Version, m.Error)
			}
			dirs[m.Path+"@"+m.Version] = m.Dir
		}
	}

	goroot, err := exec.Command(goBin, "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOROOT: %w", err)
	}
	std := moduleLicense{Path: "stdlib", Version: bi.GoVersion}
	if std.SPDX, std.Files, err = readLicenses(strings.TrimSpace(string(goroot))); err != nil {
		return nil, err
	}
	out := []moduleLicense{std}
	for _, m := range mods {
		ml := moduleLicense{Path: m.Path, Version: m.Version}
		if ml.SPDX, ml.Files, err = readLicenses(dirs[m.Path+"@"+m.Version]); err != nil {
			return nil, fmt.Errorf("licenses of %s@%s: %w", m.Path, m.Version, err)
		}
		out = append(out, ml)
	}
	return out, nil
}

// thirdPartyNotices is THIRD_PARTY_NOTICES.txt: every module linked into
// the binary with its detected licence, then each one's licence and notice
// files in full.
func thirdPartyNotices(mods []moduleLicense) []byte {
	var b strings.Builder
	b.WriteString("Third-party software in this vaultgraph binary\n")
	b.WriteString("==============================================\n\n")
	b.WriteString("Generated by scripts/dist from the Go build information of the binary (the\n")
	b.WriteString("modules go.mod selected and the linker kept) and each module's licence files\n")
	b.WriteString("in the module cache; licences detected with github.com/google/licensecheck.\n")
	b.WriteString("The embedded embedding model's licence and notice are in embedding/builtin/.\n\n")
	for _, m := range mods {
		fmt.Fprintf(&b, "  %s %s: %s\n", m.Path, m.Version, orNoAssertion(m.SPDX))
	}
	for _, m := range mods {
		fmt.Fprintf(&b, "\n\n%s\n%s %s\n%s\n", strings.Repeat("=", 79), m.Path, m.Version, strings.Repeat("=", 79))
		if len(m.Files) == 0 {
			b.WriteString("\n(no licence file in the module)\n")
		}
		for _, f := range m.Files {
			fmt.Fprintf(&b, "\n--- %s ---\n\n%s", f.Name, strings.TrimRight(string(f.Text), "\n")+"\n")
		}
	}
	return []byte(b.String())
}

func orNoAssertion(s string) string {
	if s == "" {
		return noAssertion
	}
	return s
}
