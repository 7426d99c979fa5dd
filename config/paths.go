package config

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// expandPath expands a leading ~ to the home folder and makes p absolute,
// relative to base (or to the working directory when base is ""). An empty
// p stays empty.
func expandPath(p, base string) (string, error) {
	if p == "" {
		return "", nil
	}
	if p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, "~"+string(filepath.Separator)) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("cannot expand ~: %w", err)
		}
		p = filepath.Join(home, p[1:])
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	if base != "" {
		return filepath.Join(base, p), nil
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("cannot make %q absolute: %w", p, err)
	}
	return abs, nil
}

// xdgDir returns $ENV/sub, or ~/fallback/sub when ENV is unset or not
// absolute (the XDG base directory spec says to ignore relative values),
// or "" when the home folder is unknown too.
func xdgDir(env, fallback, sub string) string {
	if d := os.Getenv(env); filepath.IsAbs(d) {
		return filepath.Join(d, sub)
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, fallback, sub)
}

// AbsPath expands a leading ~ and makes p absolute against the working
// directory, as Load does for paths given by flag or environment.
func AbsPath(p string) (string, error) { return expandPath(p, "") }

// UserFile is the per-user config file: $XDG_CONFIG_HOME/vaultgraph/config.yaml,
// else ~/.config/vaultgraph/config.yaml, on every OS. It is the file Load
// finds whatever the working directory, so a server a desktop client starts
// (in / or its own folder) reads it too. "" when the home folder is unknown.
func UserFile() string {
	if p := xdgDir("XDG_CONFIG_HOME", ".config", "vaultgraph"); p != "" {
		return filepath.Join(p, "config.yaml")
	}
	return ""
}

// VaultStateDir is the embedded store's folder for one vault inside the
// state directory: the vault folder's name plus a hash of its absolute path,
// so several vaults never share (or lock each other out of) one state file.
func VaultStateDir(stateDir, vaultPath string) string {
	sum := sha256.Sum256([]byte(vaultPath))
	name := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, filepath.Base(vaultPath))
	return filepath.Join(stateDir, name+"-"+hex.EncodeToString(sum[:4]))
}
