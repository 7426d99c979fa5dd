package container

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// instruction is one Dockerfile instruction with its continuation lines
// joined.
type instruction struct {
	cmd  string // upper case: FROM, RUN, USER...
	args string
}

// parseDockerfile reads the instructions of a Dockerfile (comments and
// blank lines dropped, "\" continuations joined), enough to check what the
// image is without a Docker engine to build it.
func parseDockerfile(t *testing.T, path string) []instruction {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []instruction
	var cur strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if more, ok := strings.CutSuffix(line, "\\"); ok {
			cur.WriteString(more + " ")
			continue
		}
		cur.WriteString(line)
		cmd, args, _ := strings.Cut(cur.String(), " ")
		out = append(out, instruction{strings.ToUpper(cmd), strings.TrimSpace(args)})
		cur.Reset()
	}
	require.NoError(t, sc.Err())
	return out
}

// finalStage is the instructions after the last FROM.
func finalStage(ins []instruction) (from string, rest []instruction) {
	for i := len(ins) - 1; i >= 0; i-- {
		if ins[i].cmd == "FROM" {
			return ins[i].args, ins[i+1:]
		}
	}
	return "", nil
}

func TestDockerfile(t *testing.T) {
	root := repoRoot(t)
	ins := parseDockerfile(t, filepath.Join(root, "Dockerfile"))
	from, final := finalStage(ins)
	get := func(cmd string) []string {
		var out []string
		for _, in := range final {
			if in.cmd == cmd {
				out = append(out, in.args)
			}
		}
		return out
	}

	assert.Equal(t, "gcr.io/distroless/static-debian12:nonroot", from, "a minimal base: no shell, no package manager")
	require.Equal(t, []string{"65532:65532"}, get("USER"), "runs as the non-root user of the base image")

	var entry []string
	require.Len(t, get("ENTRYPOINT"), 1)
	require.NoError(t, json.Unmarshal([]byte(get("ENTRYPOINT")[0]), &entry))
	assert.Equal(t, []string{"/vaultgraph"}, entry)

	var volumes []string
	require.Len(t, get("VOLUME"), 1)
	require.NoError(t, json.Unmarshal([]byte(get("VOLUME")[0]), &volumes))
	assert.ElementsMatch(t, []string{"/vault", "/state"}, volumes)
	assert.Contains(t, get("ENV")[0], "VAULTGRAPH_VAULT=/vault")
	assert.Contains(t, get("ENV")[0], "VAULTGRAPH_STATE_DIR=/state")

	require.Len(t, get("HEALTHCHECK"), 1)
	hc := get("HEALTHCHECK")[0]
	assert.Contains(t, hc, `CMD ["/vaultgraph", "health"]`, "the binary probes /healthz itself (no curl in the image)")

	// The binary is the release build's: the build stage runs scripts/dist.
	var build []string
	for _, in := range ins {
		if in.cmd == "RUN" && strings.Contains(in.args, "go run ./scripts/dist -binaries-only") {
			build = append(build, in.args)
		}
	}
	require.Len(t, build, 1, "the image's binary comes from scripts/dist, as the release archives' do")
	assert.Contains(t, build[0], `-targets "${TARGETOS}/${TARGETARCH}"`)

	copies := get("COPY")
	assert.Contains(t, copies, "--from=build --chown=0:0 --chmod=0755 /rootfs/vaultgraph /vaultgraph", "the user cannot replace its binary")

	// The registry verifies the image's ownership through this label.
	meta, err := os.ReadFile(filepath.Join(root, "server.json"))
	require.NoError(t, err)
	var server struct{ Name string }
	require.NoError(t, json.Unmarshal(meta, &server))
	assert.Contains(t, strings.Join(get("LABEL"), " "), `io.modelcontextprotocol.server.name="`+server.Name+`"`)

	ignore, err := os.ReadFile(filepath.Join(root, ".dockerignore"))
	require.NoError(t, err)
	assert.NotContains(t, string(ignore), ".git\n", "the build context keeps .git: the version comes from it")
	assert.Contains(t, string(ignore), "*.env", "secrets never enter the build context")
}
