package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
)

// profileEnv names a loopback address on which any vaultgraph command
// serves Go's profiles (/debug/pprof/), for measuring a running process:
//
//	VAULTGRAPH_PPROF=127.0.0.1:6060 vaultgraph serve ...
//	go tool pprof http://127.0.0.1:6060/debug/pprof/heap
//
// It is a developer switch, not configuration: only loopback addresses
// are accepted, and nothing is served when it is unset.
const profileEnv = "VAULTGRAPH_PPROF"

// startProfiling serves the profiles when profileEnv is set; a bad address
// is reported on stderr and ignored (profiling never stops the command).
func startProfiling() {
	addr := os.Getenv(profileEnv)
	if addr == "" {
		return
	}
	if !loopback(addr) {
		fmt.Fprintf(os.Stderr, "vaultgraph: %s=%q ignored: want a loopback host:port such as 127.0.0.1:6060\n", profileEnv, addr)
		return
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	go func() {
		if err := http.ListenAndServe(addr, mux); err != nil {
			fmt.Fprintf(os.Stderr, "vaultgraph: %s: %v\n", profileEnv, err)
		}
	}()
}

// loopback reports whether addr is host:port with a loopback IP host.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	ip := net.ParseIP(host)
	return err == nil && ip != nil && ip.IsLoopback()
}
