// Command dist builds vaultgraph's release files from the current commit:
// for each target a static binary (CGO off), an archive (.tar.gz, .zip on
// Windows) with the README and CHANGELOG, an MCP bundle (.mcpb) for Claude
// Desktop and an SPDX SBOM; then checksums.txt and the registry entry
// server.json. `make dist` runs it from the repository root.
//
// The output is reproducible: the same commit, Go toolchain and targets give
// the same bytes on any machine and in any folder (-trimpath, no build ID,
// no VCS stamping, archive times set to the commit time, fixed owners and
// order).
//
//	go run ./scripts/dist                       # every target into dist/
//	go run ./scripts/dist -targets linux/amd64  # one target
//	go run ./scripts/dist -binaries-only -out /out -targets linux/arm64 -version v0.1.0
//	go run ./scripts/dist -print-version        # the version a build of HEAD reports
//	go run ./scripts/dist -module-proxy /tmp/p  # HEAD as a module version, for go install
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vaultgraph/vaultgraph"
)

// allTargets are the release platforms, GOOS/GOARCH.
var allTargets = []string{
	"darwin/amd64", "darwin/arm64",
	"linux/amd64", "linux/arm64",
	"windows/amd64", "windows/arm64",
}

// markerFile marks an output folder as dist's own, so a later run may empty it.
const markerFile = ".vaultgraph-dist"

// options are dist's flags.
type options struct {
	out          string
	targets      []string
	version      string // overrides the version computed from git
	binariesOnly bool
	printVersion bool
	moduleProxy  string
	goBin        string
	jobs         int
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	var o options
	var targets string
	fs := flag.NewFlagSet("dist", flag.ContinueOnError)
	fs.StringVar(&o.out, "out", "dist", "output folder (emptied first if dist made it)")
	fs.StringVar(&targets, "targets", envOr("DIST_TARGETS", strings.Join(allTargets, ",")), "comma-separated GOOS/GOARCH list (env DIST_TARGETS)")
	fs.StringVar(&o.version, "version", "", "version to build, e.g. v0.1.0 (default: the VERSION file, with the commit between releases)")
	fs.BoolVar(&o.binariesOnly, "binaries-only", false, "build the binaries into OUT/bin/GOOS_GOARCH only (the container image's build step)")
	fs.BoolVar(&o.printVersion, "print-version", false, "print the version and commit a build of the checkout gets, and exit")
	fs.StringVar(&o.moduleProxy, "module-proxy", "", "write HEAD as its version into a file Go module proxy in this folder (to try go install ...@version before publishing), and exit")
	fs.StringVar(&o.goBin, "go", envOr("GO", "go"), "the go command")
	jobs, _ := strconv.Atoi(envOr("DIST_JOBS", strconv.Itoa(max(2, runtime.NumCPU()))))
	fs.IntVar(&o.jobs, "jobs", jobs, "targets built and packaged at once (env DIST_JOBS)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for _, t := range strings.Split(targets, ",") {
		if t = strings.TrimSpace(t); t == "" {
			continue
		}
		if !slices.Contains(allTargets, t) {
			return fmt.Errorf("target %q is not one of %s", t, strings.Join(allTargets, ", "))
		}
		o.targets = append(o.targets, t)
	}
	if len(o.targets) == 0 {
		return errors.New("no targets")
	}
	return build(o)
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// release is what every file of a run shares.
type release struct {
	version string    // with "v", as the binary reports it
	commit  string    // short commit, "-dirty" when the tree has changes; "" without git
	date    time.Time // archive times and SBOM creation: the commit time
}

// plain is the version without its "v", as file names and manifests use it.
func (r release) plain() string { return strings.TrimPrefix(r.version, "v") }

// describe decides the release's version, commit and date from git, the
// -version flag and SOURCE_DATE_EPOCH.
func describe(o options) (release, error) {
	var r release
	st, gitErr := readGit(".")
	if gitErr == nil {
		r.version, r.commit, r.date = vaultgraph.BuildVersion(st.Commit[:12], st.Dirty), st.Commit[:12], st.Time
		if st.Dirty {
			r.commit += "-dirty"
		}
	}
	if o.version != "" {
		if _, ok := parseSemver(strings.SplitN(o.version, "+", 2)[0]); !ok {
			return r, fmt.Errorf("-version %q is not a semantic version like v0.1.0", o.version)
		}
		r.version = o.version
	}
	if r.version == "" {
		// Not a git checkout (a source archive): the tree's VERSION alone.
		fmt.Fprintf(os.Stderr, "dist: no git (%v): version %s from VERSION, no commit\n", gitErr, vaultgraph.BuildVersion("", false))
		r.version = vaultgraph.BuildVersion("", false)
	}
	if e := os.Getenv("SOURCE_DATE_EPOCH"); e != "" {
		sec, err := strconv.ParseInt(e, 10, 64)
		if err != nil {
			return r, fmt.Errorf("SOURCE_DATE_EPOCH %q: %w", e, err)
		}
		r.date = time.Unix(sec, 0).UTC()
	}
	if r.date.IsZero() {
		r.date = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC) // zip cannot say earlier
	}
	return r, nil
}

func build(o options) error {
	start := time.Now()
	r, err := describe(o)
	if err != nil {
		return err
	}
	if o.printVersion {
		fmt.Println(r.version, r.commit)
		return nil
	}
	if o.moduleProxy != "" {
		if strings.Contains(r.version, "+") {
			return fmt.Errorf("%s is not a release (VERSION says -dev, or the tree has uncommitted changes): a module version is a released commit", r.version)
		}
		mod, err := writeModuleProxy(".", o.moduleProxy, r.version, r.date)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "dist: %s@%s in the module proxy %s; try:\n  GOPROXY=file://%s,https://proxy.golang.org GONOSUMDB=%s go install %s/cmd/vaultgraph@%s\n",
			mod, r.version, o.moduleProxy, o.moduleProxy, mod, mod, r.version)
		return nil
	}
	if strings.HasSuffix(r.version, ".dirty") {
		fmt.Fprintln(os.Stderr, "dist: warning: the tree has uncommitted changes; the files say +dirty and cannot be rebuilt from a commit")
	}
	if err := prepareOut(o.out); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "dist: %s (commit %s, %s) for %s\n", r.version, r.commit, r.date.Format(time.RFC3339), strings.Join(o.targets, " "))

	// The targets are built and packaged in parallel, o.jobs at a time:
	// go build runs its compile steps in parallel but links, and dist
	// compresses, on one core, so two targets at once keep both cores busy.
	// The results keep the order of the targets, so the output does not
	// depend on which finished first.
	var shared sharedInputs
	if !o.binariesOnly {
		if shared, err = readSharedInputs(); err != nil {
			return err
		}
	}
	type result struct {
		files  []string
		bundle string
		err    error
	}
	results := make([]result, len(o.targets))
	sem := make(chan struct{}, max(1, o.jobs))
	var wg sync.WaitGroup
	for i, t := range o.targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			goos, goarch, _ := strings.Cut(t, "/")
			t0 := time.Now()
			bin, err := buildBinary(o, r, goos, goarch)
			if err != nil {
				results[i].err = err
				return
			}
			fmt.Fprintf(os.Stderr, "dist: built %s in %s\n", bin, time.Since(t0).Round(100*time.Millisecond))
			if o.binariesOnly {
				return
			}
			files, bundle, err := packageTarget(o, r, shared, goos, goarch, bin)
			results[i] = result{files, bundle, err}
		}()
	}
	wg.Wait()
	var artifacts, bundles []string
	for _, res := range results {
		if res.err != nil {
			return res.err
		}
		artifacts = append(artifacts, res.files...)
		if res.bundle != "" {
			bundles = append(bundles, res.bundle)
		}
	}
	if o.binariesOnly {
		return nil
	}
	if err := writeServerJSON(o.out, r, bundles); err != nil {
		return err
	}
	if err := writeChecksums(o.out, artifacts); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "dist: %d files and checksums.txt, server.json in %s/ (%s)\n", len(artifacts), o.out, time.Since(start).Round(100*time.Millisecond))
	return nil
}

// prepareOut empties out when dist made it (or creates it), refusing to
// touch a folder of anyone else's.
func prepareOut(out string) error {
	entries, err := os.ReadDir(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case len(entries) > 0:
		if _, err := os.Stat(filepath.Join(out, markerFile)); err != nil {
			return fmt.Errorf("%s is not empty and was not made by dist; remove it or pick another -out", out)
		}
		if err := os.RemoveAll(out); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, markerFile), []byte("made by scripts/dist; emptied by its next run\n"), 0o644)
}

// buildBinary cross-compiles the static binary for goos/goarch into
// out/bin/goos_goarch/. Everything that could differ between machines is
// pinned: no cgo, paths trimmed, no build ID, no VCS stamping (the version
// and commit are set at link time instead), the default microarchitecture
// levels, and GOFLAGS replaced so a developer's settings do not leak in.
func buildBinary(o options, r release, goos, goarch string) (string, error) {
	dir := filepath.Join(o.out, "bin", goos+"_"+goarch)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, binaryName(goos))
	ldflags := fmt.Sprintf("-s -w -buildid= -X main.version=%s -X main.commit=%s", r.version, r.commit)
	cmd := exec.Command(o.goBin, "build", "-trimpath", "-buildvcs=false", "-mod=readonly", "-ldflags", ldflags, "-o", bin, "./cmd/vaultgraph")
	cmd.Env = append(os.Environ(),
		"CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch,
		"GOAMD64=v1", "GOARM64=v8.0", "GOEXPERIMENT=",
		"GOFLAGS=-buildvcs=false",
	)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build %s/%s: %w", goos, goarch, err)
	}
	return bin, nil
}

// fileBase is the name every release file of a target starts with; version
// is without the "v". The archive adds .tar.gz (.zip on Windows), the bundle
// .mcpb, the SBOM .spdx.json.
func fileBase(version, goos, goarch string) string {
	return fmt.Sprintf("vaultgraph_%s_%s_%s", version, goos, goarch)
}

// archiveExt is the archive's extension on goos.
func archiveExt(goos string) string {
	if goos == "windows" {
		return ".zip"
	}
	return ".tar.gz"
}

// sharedInputs are the files every target's archive and bundle carry
// besides the binary, and the licences the SBOMs declare that do not depend
// on the target.
type sharedInputs struct {
	docs        []entry // README, CHANGELOG, LICENSE, NOTICE, the model's LICENSE and NOTICE
	license     string  // the project's licence, detected from LICENSE
	model       embeddedModel
	licenseDocs []entry // LICENSE, NOTICE and the model's, for the bundle
}

func readSharedInputs() (sharedInputs, error) {
	var s sharedInputs
	for _, f := range []string{"README.md", "CHANGELOG.md", "LICENSE", "NOTICE", modelDir + "/LICENSE", modelDir + "/NOTICE"} {
		e, err := fileEntry(f, f, 0o644)
		if err != nil {
			return s, err
		}
		s.docs = append(s.docs, e)
		if f != "README.md" && f != "CHANGELOG.md" {
			s.licenseDocs = append(s.licenseDocs, e)
		}
		if f == "LICENSE" {
			s.license = detectLicense(e.Data)
		}
	}
	if s.license == "" {
		return s, errors.New("LICENSE: licensecheck recognises no licence in it")
	}
	var err error
	s.model, err = readModel()
	return s, err
}

// packageTarget writes the archive, bundle and SBOM of one target and
// returns their paths, the bundle's among them. The archive and the bundle
// carry the licences: the project's LICENSE and NOTICE, the embedded
// model's (embedding/builtin/LICENSE, NOTICE) and THIRD_PARTY_NOTICES.txt,
// made from the modules linked into this binary.
func packageTarget(o options, r release, sh sharedInputs, goos, goarch, bin string) (files []string, bundle string, err error) {
	out := o.out
	base := fileBase(r.plain(), goos, goarch)
	binEntry, err := fileEntry(binaryName(goos), bin, 0o755)
	if err != nil {
		return nil, "", err
	}
	mods, err := licenses(o.goBin, bin)
	if err != nil {
		return nil, "", err
	}
	notices := entry{Name: "THIRD_PARTY_NOTICES.txt", Mode: 0o644, Data: thirdPartyNotices(mods)}

	archive := filepath.Join(out, base+archiveExt(goos))
	entries := append(append([]entry{binEntry}, sh.docs...), notices)
	if err := writeArchive(archive, entries, r.date); err != nil {
		return nil, "", err
	}

	manifest, err := marshalIndent(bundleManifest(r.plain(), goos, sh.license))
	if err != nil {
		return nil, "", err
	}
	bundle = filepath.Join(out, base+".mcpb")
	serverBin := binEntry
	serverBin.Name = "server/" + binaryName(goos)
	bundleEntries := append(append([]entry{{Name: "manifest.json", Mode: 0o644, Data: manifest}, serverBin}, sh.licenseDocs...), notices)
	if err := writeArchive(bundle, bundleEntries, r.date); err != nil {
		return nil, "", err
	}

	sbomName := base + ".spdx.json"
	doc, err := sbom(bin, base, downloadURL(r.plain(), sbomName), r.version, r.date, mods, sh.license, sh.model)
	if err != nil {
		return nil, "", err
	}
	data, err := marshalIndent(doc)
	if err != nil {
		return nil, "", err
	}
	sbomPath := filepath.Join(out, sbomName)
	if err := writeFileAtomic(sbomPath, data, 0o644); err != nil {
		return nil, "", err
	}
	return []string{archive, bundle, sbomPath}, bundle, nil
}

// writeServerJSON writes the registry entry of this release, with each
// bundle's SHA-256, from the checked-in server.json.
func writeServerJSON(out string, r release, bundles []string) error {
	meta, err := readServerJSON("server.json")
	if err != nil {
		return err
	}
	var files []bundleFile
	for _, b := range bundles {
		sum, err := sha256File(b)
		if err != nil {
			return err
		}
		files = append(files, bundleFile{Name: filepath.Base(b), SHA256: sum})
	}
	data, err := marshalIndent(releaseServerJSON(meta, r.plain(), files))
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(out, "server.json"), data, 0o644)
}

// writeChecksums writes checksums.txt in the format of sha256sum, sorted by
// name ("sha256sum -c checksums.txt" checks a download).
func writeChecksums(out string, files []string) error {
	slices.SortFunc(files, func(a, b string) int { return strings.Compare(filepath.Base(a), filepath.Base(b)) })
	var b strings.Builder
	for _, f := range files {
		sum, err := sha256File(f)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, filepath.Base(f))
	}
	return writeFileAtomic(filepath.Join(out, "checksums.txt"), []byte(b.String()), 0o644)
}

func sha256File(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}
