package main

import (
	"bytes"
	"errors"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/vaultgraph/vaultgraph/config"
)

func TestLoggerRedactsSecretNamedAttributes(t *testing.T) {
	for _, format := range []string{config.LogText, config.LogJSON} {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			logger := newLogger(&buf, config.LogConfig{Level: "info", Format: format})
			logger.Info("request",
				"password", "pw-LEAK",
				"Authorization", "Bearer auth-LEAK",
				slog.Group("http", "token", "tok-LEAK", "tokens", []string{"toks-LEAK"}),
				"api_key", 987654321987,
				"note_id", "kept")
			out := buf.String()
			assert.NotContains(t, out, "LEAK")
			assert.NotContains(t, out, "987654321987", "a secret that is not a string is redacted too")
			assert.Contains(t, out, "kept")
			assert.Contains(t, out, "[redacted]")
		})
	}
}

func TestLoggerLevelAndFormat(t *testing.T) {
	var buf bytes.Buffer
	logger := newLogger(&buf, config.LogConfig{Level: "warn", Format: config.LogJSON})
	logger.Info("hidden")
	logger.Warn("shown", "err", errors.New("boom"))
	assert.NotContains(t, buf.String(), "hidden")
	assert.Contains(t, buf.String(), `"msg":"shown"`)
	assert.Contains(t, buf.String(), `"err":"boom"`)
}

func TestExitCodes(t *testing.T) {
	assert.Equal(t, exitOK, exitCode(nil))
	assert.Equal(t, exitError, exitCode(errors.New("boom")))
	assert.Equal(t, exitUsage, exitCode(&config.Error{Problems: []config.Problem{{Key: "store", Message: "x"}}}))
	assert.Equal(t, exitUsage, exitCode(&usageError{err: errors.New("bad flag")}))
}

func TestLoggerShowsAnUnsetSecretAsEmpty(t *testing.T) {
	var buf bytes.Buffer
	newLogger(&buf, config.LogConfig{Level: "info", Format: config.LogText}).Info("x", "password", "")
	assert.Contains(t, buf.String(), `password=""`)
}
