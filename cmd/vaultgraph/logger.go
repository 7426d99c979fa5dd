package main

import (
	"io"
	"log/slog"
	"strings"

	"github.com/vaultgraph/vaultgraph/config"
)

// newLogger builds the process's one logger, writing to w (stderr: stdout
// belongs to the stdio transport) at the configured level and format. Its
// ReplaceAttr redacts attributes whose key names a secret, whatever their
// value's type, as a second line of defence behind config.Secret.
func newLogger(w io.Writer, lc config.LogConfig) *slog.Logger {
	var level slog.Level
	if err := level.UnmarshalText([]byte(lc.Level)); err != nil {
		level = slog.LevelInfo // unreachable: config validated the level
	}
	opts := &slog.HandlerOptions{Level: level, ReplaceAttr: redactAttr}
	if lc.Format == config.LogJSON {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// secretKeys are attribute keys whose values are never logged.
var secretKeys = map[string]bool{
	"password":      true,
	"token":         true,
	"tokens":        true,
	"api_key":       true,
	"authorization": true,
}

// redactAttr replaces the value of a secret-named attribute, at any depth
// of groups, by config.Redacted. An empty string stays empty, so a log still
// shows that a secret is not set.
func redactAttr(_ []string, a slog.Attr) slog.Attr {
	if secretKeys[strings.ToLower(a.Key)] && (a.Value.Kind() != slog.KindString || a.Value.String() != "") {
		return slog.String(a.Key, config.Redacted)
	}
	return a
}
