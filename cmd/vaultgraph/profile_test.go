package main

import "testing"

// Profiles are served on loopback addresses only: anything else would
// expose the process's memory to the network.
func TestProfilesOnlyOnLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:6060": true,
		"[::1]:6060":     true,
		"0.0.0.0:6060":   false,
		":6060":          false,
		"localhost:6060": false, // a name could resolve anywhere
		"10.1.2.3:6060":  false,
		"127.0.0.1":      false,
	} {
		if got := loopback(addr); got != want {
			t.Errorf("loopback(%q) = %v, want %v", addr, got, want)
		}
	}
}
