package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/vaultgraph/vaultgraph/benchgen"
)

// probeNote is the note whose get_node answer times a start's first
// correct read: the manifest's middle note (any note would do; a fixed one
// keeps runs comparable).
func probeNote(m *benchgen.Manifest) string {
	if m == nil || len(m.Notes) == 0 {
		return ""
	}
	return m.Notes[len(m.Notes)/2].ID()
}

// vectorsDone are the log lines that end a first start's first pass of
// vectors: the fast tier's (the transformer's pass follows) or a
// one-tier model's whole pass.
var vectorsDone = []string{"semantic: notes searchable through the fast tier", "semantic: embedding done"}

// startRounds times starts of serve on vault, rounds of one start of each
// binary (b.bins, else b.bin) back to back, and prints a line per start:
// spawn to the handshake, to the first correct get_node of probe, to
// `sync done`, serve's CPU seconds and VmHWM then; with b.fresh each start
// syncs into a new empty state folder (a first start), and the line adds
// the time to its first pass of vectors and VmHWM then, which is the
// first start's peak (issue 49.8: ≤ 450 MiB at 100k).
func (b *bench) startRounds(ctx context.Context, vault string, t target, probe string) error {
	bins := b.bins
	if len(bins) == 0 {
		bins = []string{b.bin}
	}
	own := b.bin
	defer func() { b.bin = own }()
	fmt.Printf("%-5s %-24s %7s %9s %8s %7s %8s %9s %9s %s\n", "round", "binary", "ready", "1st read", "synced", "CPU s", "HWM MiB", "vectors", "HWM MiB", "load")
	for round := 1; round <= b.starts; round++ {
		for _, bin := range bins {
			b.bin = bin
			tt := t
			if b.fresh {
				dir, err := os.MkdirTemp(b.work, "first-start-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(dir)
				tt.args = slices.Clone(t.args)
				if i := slices.Index(tt.args, "--state-dir"); i >= 0 {
					tt.args[i+1] = dir
				} else {
					tt.args = append(tt.args, "--state-dir", dir)
				}
			}
			start := time.Now()
			srv, err := b.startServe(ctx, vault, tt, probe)
			if err != nil {
				return fmt.Errorf("%s: %w", bin, err)
			}
			cpu, hwm := serveCPU(srv), srv.peakRSS()
			vectors, vhwm := "", ""
			if b.fresh {
				for time.Since(start) < 30*time.Minute && ctx.Err() == nil {
					out := srv.stderr.String()
					if slices.ContainsFunc(vectorsDone, func(msg string) bool { return strings.Contains(out, `msg="`+msg) }) {
						break
					}
					time.Sleep(20 * time.Millisecond)
				}
				vectors, vhwm = fmt.Sprintf("%.2f", time.Since(start).Seconds()), fmt.Sprint(srv.peakRSS()>>20)
			}
			srv.close()
			load := ""
			if data, err := os.ReadFile("/proc/loadavg"); err == nil {
				load = strings.Fields(string(data))[0]
			}
			fmt.Printf("%-5d %-24s %7.3f %9.3f %8.3f %7.2f %8d %9s %9s %s\n", round, filepath.Base(bin),
				srv.ready.Seconds(), srv.firstRead.Seconds(), srv.synced.Seconds(), cpu, hwm>>20, vectors, vhwm, load)
		}
	}
	return nil
}

// serveCPU is serve's user + system CPU seconds so far (/proc/PID/stat).
func serveCPU(s *server) float64 {
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// Fields after the command name (which may hold spaces) in parentheses.
	rest := string(data)
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		rest = rest[i+1:]
	}
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0
	}
	var utime, stime float64
	fmt.Sscan(f[11], &utime)
	fmt.Sscan(f[12], &stime)
	return (utime + stime) / 100 // clock ticks (USER_HZ, 100 on Linux)
}
