package config

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"gopkg.in/yaml.v3"
)

// originDefault is the origin of a value nobody set.
const originDefault = "default"

// problemFile is the Problem.Key of a problem with the config file itself.
const problemFile = "config file"

// LoadOptions says what Load reads besides defaults, file and environment.
type LoadOptions struct {
	// Flags is the parsed flag set of the running command. Flags defined by
	// AddFlags override their keys when given; --config names the file.
	// Nil reads no flags.
	Flags *pflag.FlagSet
	// RequireVault makes an unset vault a problem (serve, sync, call).
	RequireVault bool
}

// Load merges defaults, the config file, the environment and the flags
// (each overriding the one before), decodes every key into a Config and
// validates it. On any problem it returns a nil Config and an *Error that
// lists all of them.
func Load(opts LoadOptions) (*Config, error) {
	v := viper.New()
	for i := range keys {
		k := &keys[i]
		v.SetDefault(k.name, k.defaultValue())
		// Binding every key (rather than AutomaticEnv alone) makes the
		// environment work for keys the file does not mention.
		if err := v.BindEnv(k.name, k.env()); err != nil {
			return nil, fmt.Errorf("config: bind %s: %w", k.env(), err)
		}
	}
	flags := boundFlags(opts.Flags)
	for name, f := range flags {
		if err := v.BindPFlag(name, f); err != nil {
			return nil, fmt.Errorf("config: bind --%s: %w", f.Name, err)
		}
	}

	file, fileOrigin, problems := findFile(opts.Flags)
	if file != "" {
		doc, ps := readFile(file)
		for i := range ps {
			ps[i].Origin = fileOrigin
		}
		problems = append(problems, ps...)
		if doc != nil {
			if err := v.MergeConfigMap(doc); err != nil {
				problems = append(problems, Problem{Key: problemFile, Message: fmt.Sprintf("%s: %v", file, err), Origin: fileOrigin})
			}
		}
	}

	c := &Config{File: file, origins: map[string]string{}}
	failed := map[string]bool{}
	for i := range keys {
		k := &keys[i]
		origin, base := originOf(k, flags[k.name], v, file)
		c.origins[k.name] = origin
		if ps := k.decode(v.Get(k.name), c, base); len(ps) > 0 {
			failed[k.name] = true
			problems = append(problems, ps...)
		}
	}
	problems = append(problems, c.problems(failed, opts.RequireVault)...)
	if len(problems) > 0 {
		for i := range problems {
			if problems[i].Origin == "" {
				problems[i].Origin = c.originOfProblem(problems[i].Key)
			}
		}
		sortProblems(problems)
		return nil, &Error{Problems: problems}
	}
	c.Toolsets = expandToolsets(c.Toolsets)
	return c, nil
}

// originOf says where the key's value comes from, and the folder a relative
// path in it is relative to ("" for the working directory).
func originOf(k *key, flag *pflag.Flag, v *viper.Viper, file string) (origin, base string) {
	switch {
	case flag != nil && flag.Changed:
		return "flag --" + flag.Name, ""
	case k.envSet():
		return "env " + k.env(), ""
	case file != "" && v.InConfig(k.name):
		return file, filepath.Dir(file)
	}
	return originDefault, ""
}

// originOfProblem finds the origin of the key a problem names.
func (c *Config) originOfProblem(problemKey string) string {
	if i := keyIndex(problemKey); i >= 0 {
		return c.origins[keys[i].name]
	}
	return ""
}

// sortProblems orders problems like the key table: file problems and
// unknown keys first, then each key's problems in table order.
func sortProblems(ps []Problem) {
	slices.SortStableFunc(ps, func(a, b Problem) int {
		return keyIndex(a.Key) - keyIndex(b.Key)
	})
}

// findFile picks the config file: --config, else $VAULTGRAPH_CONFIG (both
// must exist), else the first of ./vaultgraph.yaml and
// $XDG_CONFIG_HOME/vaultgraph/config.yaml that exists. It returns "" when
// there is none, which is fine: defaults, environment and flags suffice.
func findFile(flags *pflag.FlagSet) (file, origin string, problems []Problem) {
	explicit := ""
	if flags != nil {
		if f := flags.Lookup(FlagConfig); f != nil && f.Changed {
			explicit, origin = f.Value.String(), "flag --"+FlagConfig
		}
	}
	if explicit == "" {
		if e := os.Getenv(EnvConfig); e != "" {
			explicit, origin = e, "env "+EnvConfig
		}
	}
	if explicit != "" {
		p, err := expandPath(explicit, "")
		if err != nil {
			return "", "", []Problem{{Key: problemFile, Message: fmt.Sprintf("%q: %v", explicit, err), Origin: origin}}
		}
		st, err := os.Stat(p)
		switch {
		case err != nil:
			return "", "", []Problem{{Key: problemFile, Message: fmt.Sprintf("%q cannot be read: %v", p, errors.Unwrap(err)), Origin: origin}}
		case st.IsDir():
			return "", "", []Problem{{Key: problemFile, Message: fmt.Sprintf("%q is a directory, want a YAML file", p), Origin: origin}}
		}
		return p, p, nil
	}
	for _, candidate := range searchPath() {
		st, err := os.Stat(candidate)
		if err == nil && !st.IsDir() {
			return candidate, candidate, nil
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", "", []Problem{{Key: problemFile, Message: fmt.Sprintf("%q cannot be read: %v", candidate, errors.Unwrap(err))}}
		}
	}
	return "", "", nil
}

// SearchPath lists, in order, the files Load looks for when neither
// --config nor VAULTGRAPH_CONFIG names one.
func SearchPath() []string { return searchPath() }

func searchPath() []string {
	var out []string
	if wd, err := os.Getwd(); err == nil {
		out = append(out, filepath.Join(wd, "vaultgraph.yaml"))
	}
	if p := UserFile(); p != "" {
		out = append(out, p)
	}
	return out
}

// readFile parses the YAML file into a mapping and reports its unknown keys
// (a misspelt key would otherwise be ignored without a word).
func readFile(file string) (map[string]any, []Problem) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, []Problem{{Key: problemFile, Message: fmt.Sprintf("%q cannot be read: %v", file, errors.Unwrap(err))}}
	}
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, []Problem{{Key: problemFile, Message: fmt.Sprintf("%s: %v", file, err)}}
	}
	if doc == nil { // empty file, or only comments
		return nil, nil
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return nil, []Problem{{Key: problemFile, Message: fmt.Sprintf("%s: %s is not a mapping of keys, want e.g. \"vault: ~/notes\"", file, showValue(doc))}}
	}
	return m, unknownKeys("", m)
}

// unknownKeys walks a decoded YAML mapping and reports keys that are not in
// the table, and parents (neo4j:) whose value is not a mapping.
func unknownKeys(prefix string, m map[string]any) []Problem {
	var out []Problem
	for _, name := range slices.Sorted(maps.Keys(m)) {
		full := strings.ToLower(name)
		if prefix != "" {
			full = prefix + "." + full
		}
		if lookupKey(full) != nil {
			continue
		}
		children := childrenOf(full)
		if len(children) == 0 {
			out = append(out, Problem{Key: full, Message: "unknown key, want one of " + strings.Join(childrenOf(prefix), ", ")})
			continue
		}
		switch sub := m[name].(type) {
		case nil: // "neo4j:" with every child commented out
		case map[string]any:
			out = append(out, unknownKeys(full, sub)...)
		default:
			out = append(out, Problem{Key: full, Message: fmt.Sprintf("%s is not a mapping, want keys %s", showValue(sub), strings.Join(children, ", "))})
		}
	}
	return out
}

// childrenOf lists the next name segment of every key under parent ("" is
// the top level), in table order, without repeats.
func childrenOf(parent string) []string {
	var out []string
	for i := range keys {
		rest := keys[i].name
		if parent != "" {
			var ok bool
			if rest, ok = strings.CutPrefix(rest, parent+"."); !ok {
				continue
			}
		}
		head, _, _ := strings.Cut(rest, ".")
		if !slices.Contains(out, head) {
			out = append(out, head)
		}
	}
	return out
}

// expandToolsets replaces "all" by every toolset, drops repeats and unknown
// names, and orders the result like Toolsets.
func expandToolsets(in []string) []string {
	want := map[string]bool{}
	for _, t := range in {
		want[t] = true
	}
	out := []string{}
	for _, t := range Toolsets {
		if want[t] || want[ToolsetAll] {
			out = append(out, t)
		}
	}
	return out
}
