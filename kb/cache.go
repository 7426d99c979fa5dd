package kb

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"slices"
	"strings"
)

// syncCache keeps the plugin's list cache, .llm_bridges/knowledge_base/
// metadata.json, in step with kbs when the file exists: the plugin lists
// knowledge bases from it when it is not empty, so a stale cache would
// hide a knowledge base created here. Keys other than updated_at and
// knowledge_bases are kept. vaultgraph itself always lists from the
// meta.md files. A failure is logged, not returned: the metadata itself
// was written.
func (s *Service) syncCache(ctx context.Context, kbs []*KnowledgeBase) {
	rel := baseDir() + "/" + cacheFile
	raw, err := s.readMeta(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	doc := map[string]json.RawMessage{}
	if err == nil {
		_ = json.Unmarshal(raw, &doc) // an unreadable cache is rewritten whole
	}
	if doc == nil {
		doc = map[string]json.RawMessage{}
	}
	sorted := slices.Clone(kbs)
	slices.SortFunc(sorted, func(a, b *KnowledgeBase) int { return strings.Compare(a.Name, b.Name) })
	summaries := make([]Summary, len(sorted))
	for i, kb := range sorted {
		summaries[i] = kb.summary()
	}
	list, _ := json.Marshal(summaries)
	stamp, _ := json.Marshal(s.now().UTC().Format("2006-01-02T15:04:05.000Z07:00"))
	doc["knowledge_bases"] = list
	doc["updated_at"] = stamp
	out, err := json.Marshal(doc)
	if err == nil {
		var buf bytes.Buffer
		if err = json.Indent(&buf, out, "", "  "); err == nil {
			err = s.writeMeta(rel, buf.Bytes())
		}
	}
	if err != nil {
		s.log.WarnContext(ctx, "kb: could not update the knowledge base list cache", "file", rel, "err", err)
	}
}
