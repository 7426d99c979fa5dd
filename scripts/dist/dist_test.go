package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// compileSchema compiles a JSON schema of testdata with format assertions
// on (uri, email), as the publishing validators check them.
func compileSchema(t *testing.T, file string) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", file))
	require.NoError(t, err)
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	require.NoError(t, c.AddResource(file, doc))
	s, err := c.Compile(file)
	require.NoError(t, err)
	return s
}

// validate checks a JSON document against s.
func validate(t *testing.T, s *jsonschema.Schema, data []byte) error {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	require.NoError(t, err)
	return s.Validate(inst)
}

func TestBundleManifestsValidateAgainstTheMCPBSchema(t *testing.T) {
	s := compileSchema(t, "mcpb-manifest-v0.2.schema.json")
	for _, target := range allTargets {
		goos, _, _ := strings.Cut(target, "/")
		t.Run(target, func(t *testing.T) {
			m := bundleManifest("0.1.0", goos, "Apache-2.0")
			data, err := marshalIndent(m)
			require.NoError(t, err)
			require.NoError(t, validate(t, s, data))
			assert.Equal(t, "${__dirname}/"+m.Server.EntryPoint, m.Server.MCPConfig.Command)
			assert.Equal(t, []string{"serve", "--vault", "${user_config.vault}"}, m.Server.MCPConfig.Args,
				"the vault the user picks is passed to serve")
			assert.Equal(t, "directory", m.UserConfig["vault"].Type)
			assert.True(t, m.UserConfig["vault"].Required)
			assert.Len(t, m.Compatibility.Platforms, 1, "a bundle carries one platform's binary")
		})
	}
	t.Run("the schema rejects what the client would not install", func(t *testing.T) {
		m := bundleManifest("0.1.0", "linux", "Apache-2.0")
		m.Server.Type = "exe"
		data, err := marshalIndent(m)
		require.NoError(t, err)
		assert.Error(t, validate(t, s, data))
	})
}

// latestRelease is the newest version heading of CHANGELOG.md, without "v".
func latestRelease(t *testing.T) string {
	t.Helper()
	f, err := os.Open("../../CHANGELOG.md")
	require.NoError(t, err)
	defer f.Close()
	heading := regexp.MustCompile(`^## v(\d+\.\d+\.\d+\S*) — \d{4}-\d{2}-\d{2}$`)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := heading.FindStringSubmatch(sc.Text()); m != nil {
			return m[1]
		}
	}
	t.Fatal("CHANGELOG.md has no release heading (## vX.Y.Z — YYYY-MM-DD)")
	return ""
}

// bundlesOf names the bundles of version for every target, without hashes.
func bundlesOf(version string) []bundleFile {
	var out []bundleFile
	for _, target := range allTargets {
		goos, goarch, _ := strings.Cut(target, "/")
		out = append(out, bundleFile{Name: "vaultgraph_" + version + "_" + goos + "_" + goarch + ".mcpb"})
	}
	return out
}

// TestReadmeInstallLinesMatchDist checks that every release file the
// README names is one make dist makes for the latest release of the
// CHANGELOG, downloaded from that release's page.
func TestReadmeInstallLinesMatchDist(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	readme := string(data)
	latest := latestRelease(t)
	made := map[string]bool{}
	for _, target := range allTargets {
		goos, goarch, _ := strings.Cut(target, "/")
		base := fileBase(latest, goos, goarch)
		made[base+archiveExt(goos)], made[base+".mcpb"], made[base+".spdx.json"] = true, true, true
	}
	names := regexp.MustCompile(`vaultgraph_[0-9][^\s/)\x60"]*`).FindAllString(readme, -1)
	require.NotEmpty(t, names, "the README names no release file")
	for _, n := range names {
		if strings.Contains(n, "<os>") {
			assert.Equal(t, "vaultgraph_"+latest+"_<os>_<arch>.mcpb", n)
			continue
		}
		assert.True(t, made[n], "README names %s, which make dist does not make for v%s", n, latest)
	}
	for _, m := range regexp.MustCompile(`releases/download/(v[^/]+)/`).FindAllStringSubmatch(readme, -1) {
		assert.Equal(t, "v"+latest, m[1], "README downloads from another release than the latest")
	}
	for _, m := range regexp.MustCompile(`cmd/vaultgraph@(v\S+?)\x60`).FindAllStringSubmatch(readme, -1) {
		assert.Equal(t, "v"+latest, m[1], "README installs another version than the latest")
	}
}

// TestServerJSON checks the checked-in registry entry: it validates against
// the registry's schema, names the latest release of CHANGELOG.md and every
// package dist makes for it (UPDATE_SERVERJSON=true rewrites it), and the
// entry dist writes, with hashes, validates too.
func TestServerJSON(t *testing.T) {
	s := compileSchema(t, "server.schema.2025-12-11.json")
	path := "../../server.json"
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	meta, err := readServerJSON(path)
	require.NoError(t, err)

	want, err := marshalIndent(releaseServerJSON(meta, latestRelease(t), bundlesOf(latestRelease(t))))
	require.NoError(t, err)
	if os.Getenv("UPDATE_SERVERJSON") == "true" {
		require.NoError(t, os.WriteFile(path, want, 0o644))
		data = want
	}
	assert.Equal(t, string(want), string(data), "server.json is not the entry of the latest release; run UPDATE_SERVERJSON=true go test ./scripts/dist")
	require.NoError(t, validate(t, s, data))

	bundles := bundlesOf("0.2.0")
	for i := range bundles {
		bundles[i].SHA256 = strings.Repeat("0123456789abcdef", 4)
	}
	published, err := marshalIndent(releaseServerJSON(meta, "0.2.0", bundles))
	require.NoError(t, err)
	require.NoError(t, validate(t, s, published))
	var doc map[string]any
	require.NoError(t, json.Unmarshal(published, &doc))
	assert.Equal(t, "io.github.vaultgraph/vaultgraph", doc["name"])
	assert.Len(t, doc["packages"], len(allTargets)+1, "a bundle per target and the image")
	assert.Contains(t, string(published), `"identifier": "https://github.com/vaultgraph/vaultgraph/releases/download/v0.2.0/vaultgraph_0.2.0_darwin_arm64.mcpb"`)
	assert.Contains(t, string(published), `"identifier": "ghcr.io/vaultgraph/vaultgraph:0.2.0"`)

	t.Run("the schema rejects a bad hash and a long description", func(t *testing.T) {
		bad := releaseServerJSON(meta, "0.2.0", []bundleFile{{Name: "x.mcpb", SHA256: "nothex"}})
		b, err := marshalIndent(bad)
		require.NoError(t, err)
		assert.Error(t, validate(t, s, b))
		long := releaseServerJSON(meta, "0.2.0", nil)
		long.Description = strings.Repeat("x", 101)
		b, err = marshalIndent(long)
		require.NoError(t, err)
		assert.Error(t, validate(t, s, b))
	})
	t.Run("an unknown field in server.json is refused, not dropped", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "server.json")
		require.NoError(t, os.WriteFile(p, []byte(`{"name":"x","remotes":[]}`), 0o644))
		_, err := readServerJSON(p)
		assert.ErrorContains(t, err, "remotes")
	})
}

func TestArchivesAreReproducible(t *testing.T) {
	mtime := time.Date(2026, 11, 25, 14, 19, 44, 0, time.UTC)
	entries := []entry{
		{Name: "vaultgraph", Mode: 0o755, Data: bytes.Repeat([]byte("binary"), 1000)},
		{Name: "README.md", Mode: 0o644, Data: []byte("# vaultgraph\n")},
	}
	for _, name := range []string{"a.tar.gz", "a.zip", "a.mcpb"} {
		t.Run(name, func(t *testing.T) {
			dir1, dir2 := t.TempDir(), t.TempDir()
			require.NoError(t, writeArchive(filepath.Join(dir1, name), entries, mtime))
			require.NoError(t, writeArchive(filepath.Join(dir2, name), entries, mtime))
			b1, err := os.ReadFile(filepath.Join(dir1, name))
			require.NoError(t, err)
			b2, err := os.ReadFile(filepath.Join(dir2, name))
			require.NoError(t, err)
			assert.Equal(t, b1, b2, "the same entries give the same bytes")
			assert.NotContains(t, listFiles(t, dir1), name+".tmp")

			got := readArchive(t, filepath.Join(dir1, name))
			require.Len(t, got, 2)
			for i, e := range entries {
				assert.Equal(t, e.Name, got[i].name)
				assert.Equal(t, e.Mode, got[i].mode, "%s keeps its mode", e.Name)
				assert.True(t, got[i].mtime.Equal(mtime), "%s: time %v", e.Name, got[i].mtime)
				assert.Equal(t, e.Data, got[i].data)
			}
		})
	}
	t.Run("tar headers carry no owner", func(t *testing.T) {
		var buf bytes.Buffer
		require.NoError(t, tarGz(&buf, entries, mtime))
		zr, err := gzip.NewReader(&buf)
		require.NoError(t, err)
		assert.True(t, zr.ModTime.IsZero() || zr.ModTime.Unix() == 0)
		assert.Empty(t, zr.Name)
		tr := tar.NewReader(zr)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
			assert.Zero(t, h.Uid)
			assert.Zero(t, h.Gid)
			assert.Empty(t, h.Uname)
			assert.Empty(t, h.Gname)
		}
	})
}

type archived struct {
	name  string
	mode  os.FileMode
	mtime time.Time
	data  []byte
}

func readArchive(t *testing.T, path string) []archived {
	t.Helper()
	var out []archived
	if isZip(path) {
		zr, err := zip.OpenReader(path)
		require.NoError(t, err)
		defer zr.Close()
		for _, f := range zr.File {
			rc, err := f.Open()
			require.NoError(t, err)
			data, err := io.ReadAll(rc)
			require.NoError(t, err)
			require.NoError(t, rc.Close())
			out = append(out, archived{f.Name, f.Mode().Perm(), f.Modified, data})
		}
		return out
	}
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		require.NoError(t, err)
		data, err := io.ReadAll(tr)
		require.NoError(t, err)
		out = append(out, archived{h.Name, os.FileMode(h.Mode).Perm(), h.ModTime, data})
	}
}

func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestSemver(t *testing.T) {
	for _, v := range []string{"v0.1.0", "v1.2.3", "v1.0.0-rc.1", "v10.20.30-alpha.beta-1"} {
		_, ok := parseSemver(v)
		assert.True(t, ok, v)
	}
	for _, v := range []string{"0.1.0", "v1.2", "v01.2.3", "v1.2.3-", "v1.2.3+build", "v1.2.3-a..b", "vx.y.z", "latest"} {
		_, ok := parseSemver(v)
		assert.False(t, ok, v)
	}
}

// TestModuleProxyServesGoInstall makes a tagged module's version into a
// file proxy, as -module-proxy does, and installs it with go install
// module@version from that proxy alone (the module has no dependencies):
// the binary reports the tag, as one installed from the public proxy will.
func TestModuleProxyServesGoInstall(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s: %s", strings.Join(args, " "), out)
	}
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "cmd", "hello"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module example.com/hello\n\ngo 1.24\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "cmd", "hello", "main.go"), []byte(`package main

import (
	"fmt"
	"runtime/debug"
)

func main() {
	bi, _ := debug.ReadBuildInfo()
	fmt.Print(bi.Main.Version)
}
`), 0o644))
	run("git", "init", "-q")
	run("git", "add", ".")
	run("git", "commit", "-qm", "hello")
	run("git", "tag", "-a", "v0.3.0", "-m", "v0.3.0")

	proxy := t.TempDir()
	mod, err := writeModuleProxy(repo, proxy, "v0.3.0", time.Date(2026, 11, 25, 15, 0, 0, 0, time.UTC))
	require.NoError(t, err)
	assert.Equal(t, "example.com/hello", mod)

	gobin := t.TempDir()
	cmd := exec.Command("go", "install", "example.com/hello/cmd/hello@v0.3.0")
	cmd.Dir = t.TempDir()
	// A module cache of its own (writable, so the test can delete it):
	// the installed version comes from this proxy, not from an earlier run.
	cmd.Env = append(os.Environ(), "GOPROXY=file://"+filepath.ToSlash(proxy), "GONOSUMDB=example.com",
		"GOFLAGS=-modcacherw", "GOMODCACHE="+t.TempDir(), "GOBIN="+gobin, "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go install: %s", out)
	got, err := exec.Command(filepath.Join(gobin, "hello")).Output()
	require.NoError(t, err)
	assert.Equal(t, "v0.3.0", string(got))
}
