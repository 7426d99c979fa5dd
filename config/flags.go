package config

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// FlagConfig is the flag that names the config file.
const FlagConfig = "config"

// EnvConfig names the config file when --config is not given.
const EnvConfig = EnvPrefix + "CONFIG"

// flagAnnotation marks a flag defined by AddFlags with the key it sets, so
// Load binds exactly those flags and never a same-named flag of a command
// (sync's own --watch is not the watch key).
const flagAnnotation = "vaultgraph.config.key"

// AddFlags defines on fs the flag of every key in scope, with the key's
// default and help (which names its environment variable). FlagGlobal also
// adds --config. Secrets have no flag: argv is visible to other users.
func AddFlags(fs *pflag.FlagSet, scope FlagScope) {
	if scope == FlagGlobal {
		fs.String(FlagConfig, "", "config file (default ./vaultgraph.yaml, else $XDG_CONFIG_HOME/vaultgraph/config.yaml; env "+EnvConfig+")")
	}
	for i := range keys {
		k := &keys[i]
		if k.flag == "" || !inScope(k.scope, scope) {
			continue
		}
		usage := k.help
		if k.allowed != nil {
			usage += "; one of " + strings.Join(k.allowed, ", ")
		}
		usage += " (env " + k.env() + ")"
		switch def := k.defaultValue().(type) {
		case string:
			fs.String(k.flag, def, usage)
		case bool:
			fs.Bool(k.flag, def, usage)
		case int:
			fs.Int(k.flag, def, usage)
		case time.Duration:
			fs.Duration(k.flag, def, usage)
		case []string:
			fs.StringSlice(k.flag, def, usage)
		default:
			panic(fmt.Sprintf("config: key %s: no flag type for a default of type %T", k.name, def))
		}
		_ = fs.SetAnnotation(k.flag, flagAnnotation, []string{k.name}) // the flag was just defined
	}
}

// inScope reports whether a key of scope has a flag on the command of
// command (FlagServeSync keys are flags of serve and of sync).
func inScope(scope, command FlagScope) bool {
	return scope == command || scope == FlagServeSync && (command == FlagServe || command == FlagSync)
}

// boundFlags returns, by key name, the flags of fs that AddFlags defined.
func boundFlags(fs *pflag.FlagSet) map[string]*pflag.Flag {
	out := map[string]*pflag.Flag{}
	if fs == nil {
		return out
	}
	fs.VisitAll(func(f *pflag.Flag) {
		if names := f.Annotations[flagAnnotation]; len(names) == 1 {
			out[names[0]] = f
		}
	})
	return out
}
