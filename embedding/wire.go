package embedding

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

type embedRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

// ollamaWire speaks Ollama's POST /api/embed:
// {"model","input":[...]} -> {"embeddings":[[...],...]} in input order.
type ollamaWire struct{}

func (ollamaWire) path(base *url.URL) string { return base.String() + "/api/embed" }

func (ollamaWire) encode(model string, texts []string) ([]byte, error) {
	return json.Marshal(embedRequest{Model: model, Input: texts})
}

func (ollamaWire) decode(body []byte) ([][]float32, error) {
	var resp struct {
		Embeddings [][]float32 `json:"embeddings"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, err
	}
	if resp.Embeddings == nil {
		return nil, fmt.Errorf("no embeddings field")
	}
	return resp.Embeddings, nil
}

// errorMessage reads Ollama's {"error": "..."}.
func (ollamaWire) errorMessage(body []byte) string {
	var resp struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &resp) == nil && resp.Error != "" {
		return resp.Error
	}
	return plainText(body)
}

// openAIWire speaks the OpenAI embeddings API, POST /v1/embeddings:
// {"model","input":[...]} -> {"data":[{"index","embedding"}]}, which may
// come in any order. A base URL that already ends in /v1 (as OpenAI's SDKs
// expect it) is not extended twice.
type openAIWire struct{}

func (openAIWire) path(base *url.URL) string {
	s := base.String()
	if strings.HasSuffix(base.Path, "/v1") {
		return s + "/embeddings"
	}
	return s + "/v1/embeddings"
}

func (openAIWire) encode(model string, texts []string) ([]byte, error) {
	return json.Marshal(embedRequest{Model: model, Input: texts})
}

func (openAIWire) decode(body []byte) ([][]float32, error) {
	var resp struct {
		Data []struct {
			Index     *int      `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, err
	}
	if resp.Data == nil {
		return nil, fmt.Errorf("no data field")
	}
	out := make([][]float32, len(resp.Data))
	for _, d := range resp.Data {
		if d.Index == nil || *d.Index < 0 || *d.Index >= len(out) || out[*d.Index] != nil {
			return nil, fmt.Errorf("data items must carry the distinct indexes 0..%d", len(out)-1)
		}
		if d.Embedding == nil {
			return nil, fmt.Errorf("item %d has no embedding", *d.Index)
		}
		out[*d.Index] = d.Embedding
	}
	return out, nil
}

// errorMessage reads OpenAI's {"error": {"message": "..."}}; some
// compatible servers send {"error": "..."} or {"message": "..."}.
func (openAIWire) errorMessage(body []byte) string {
	var resp struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &resp) != nil {
		return plainText(body)
	}
	var nested struct {
		Message string `json:"message"`
	}
	var flat string
	switch {
	case json.Unmarshal(resp.Error, &nested) == nil && nested.Message != "":
		return nested.Message
	case json.Unmarshal(resp.Error, &flat) == nil && flat != "":
		return flat
	}
	return resp.Message
}

// plainText returns a short non-JSON body (an HTML error page is noise).
func plainText(body []byte) string {
	s := strings.TrimSpace(string(body))
	if strings.HasPrefix(s, "<") {
		return ""
	}
	return s
}
