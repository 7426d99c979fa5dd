package benchgen

import (
	"math/rand/v2"
	"path"
	"strconv"
	"strings"
)

// plan is everything about the vault that notes depend on each other for:
// where every note lives and what it is called (links need the target's
// name), which notes are hubs, and the tag vocabulary. It is drawn from one
// PCG stream (sequence 0), in a fixed order.
type plan struct {
	cfg     Config
	folders []string // vault-relative folders; "" is the root
	paths   []string // per note: vault-relative path with ".md"
	names   []string // per note: file name without ".md"
	byPath  []bool   // per note: name shared across folders, so links name the path
	hubRank []int    // hubRank[r] is the note of Zipf rank r (0 = biggest hub)
	tags    []string // the tag vocabulary, most popular first
}

func newPlan(cfg Config) *plan {
	rng := rand.New(rand.NewPCG(cfg.Seed, 0))
	p := &plan{cfg: cfg}
	p.folders = planFolders(rng, max(len(topFolders), cfg.Notes/notesPerFolder))
	p.planNotes(rng)
	p.hubRank = rng.Perm(cfg.Notes)
	p.tags = planTags(rng)
	return p
}

// planFolders returns n distinct folders: the top folders, then folders
// nested under a random existing one of depth below maxFolderDepth.
func planFolders(rng *rand.Rand, n int) []string {
	folders := append([]string(nil), topFolders...)
	seen := make(map[string]bool, n)
	for _, f := range folders {
		seen[strings.ToLower(f)] = true
	}
	for len(folders) < n {
		parent := folders[rng.IntN(len(folders))]
		if strings.Count(parent, "/")+1 >= maxFolderDepth {
			continue
		}
		name := capitalize(words[rng.IntN(len(words))])
		if rng.IntN(4) == 0 {
			name += " " + strconv.Itoa(2015+rng.IntN(11))
		}
		f := parent + "/" + name
		if seen[strings.ToLower(f)] {
			f += " " + strconv.Itoa(len(folders)) // unique, still deterministic
		}
		seen[strings.ToLower(f)] = true
		folders = append(folders, f)
	}
	return folders
}

// planNotes places and names every note. Names are unique ("Graph lattice
// 42", the number being the note's index) except the dupNames, which
// repeat across folders but never within one.
func (p *plan) planNotes(rng *rand.Rand) {
	n := p.cfg.Notes
	p.paths = make([]string, n)
	p.names = make([]string, n)
	p.byPath = make([]bool, n)
	taken := make(map[string]bool) // lower-case folder/name of duplicate names
	for i := range n {
		folder := ""
		if rng.Float64() >= rootShare {
			folder = p.folders[rng.IntN(len(p.folders))]
		}
		name := ""
		if rng.Float64() < dupShare {
			cand := dupNames[rng.IntN(len(dupNames))]
			key := strings.ToLower(path.Join(folder, cand))
			if !taken[key] {
				taken[key] = true
				name = cand
				p.byPath[i] = true
			}
		}
		if name == "" {
			name = capitalize(words[rng.IntN(len(words))]) + " " + words[rng.IntN(len(words))] + " " + strconv.Itoa(i)
		}
		p.names[i] = name
		p.paths[i] = path.Join(folder, name+".md")
	}
}

// planTags returns tagVocabulary distinct tags; about a third are nested
// ("area/word").
func planTags(rng *rand.Rand) []string {
	tags := make([]string, 0, tagVocabulary)
	seen := make(map[string]bool, tagVocabulary)
	for len(tags) < tagVocabulary {
		t := words[rng.IntN(len(words))]
		if rng.IntN(3) == 0 {
			t = words[rng.IntN(len(words))] + "/" + t
		}
		if seen[t] {
			continue
		}
		seen[t] = true
		tags = append(tags, t)
	}
	return tags
}

// linkTarget is how links name note j: its file name, or its path without
// ".md" when the name is shared, so the link reaches exactly j.
func (p *plan) linkTarget(j int) string {
	if p.byPath[j] {
		return strings.TrimSuffix(p.paths[j], ".md")
	}
	return p.names[j]
}

func capitalize(w string) string {
	if w == "" {
		return w
	}
	return strings.ToUpper(w[:1]) + w[1:]
}
