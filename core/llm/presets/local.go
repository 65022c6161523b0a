package presets

import (
	"context"
	"errors"
	"net/http"
	"strings"
)

// listOllama lists the pulled models (/api/tags) and asks /api/show for each one's trained
// context length (model_info "<architecture>.context_length"). The server may run a model
// with a smaller num_ctx than that; the user's context window setting corrects it.
func listOllama(ctx context.Context, c client, base string) ([]Model, error) {
	r := root(base)
	var tags struct {
		Models []struct {
			Name  string `json:"name"`
			Model string `json:"model"`
		} `json:"models"`
	}
	if err := c.getJSON(ctx, r+"/api/tags", &tags); err != nil {
		return nil, err
	}
	out := make([]Model, 0, len(tags.Models))
	for _, t := range tags.Models {
		id := t.Model
		if id == "" {
			id = t.Name
		}
		m := Model{ID: id}
		var show struct {
			ModelInfo map[string]any `json:"model_info"`
		}
		if err := c.do(ctx, http.MethodPost, r+"/api/show", map[string]string{"model": id}, &show); err != nil {
			return nil, err
		}
		for k, v := range show.ModelInfo {
			if n, ok := v.(float64); ok && strings.HasSuffix(k, ".context_length") {
				m.ContextWindow = int(n)
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// listLMStudio reads LM Studio's REST API (/api/v0/models), which gives each model's context
// length and type; embedding models are left out. Older versions without it are listed
// through /v1/models.
func listLMStudio(ctx context.Context, c client, base string) ([]Model, error) {
	var resp struct {
		Data []struct {
			ID               string `json:"id"`
			Type             string `json:"type"`
			MaxContextLength int    `json:"max_context_length"`
		} `json:"data"`
	}
	err := c.getJSON(ctx, root(base)+"/api/v0/models", &resp)
	if errors.Is(err, ErrStatus) {
		return listOpenAI(ctx, c, base)
	}
	if err != nil {
		return nil, err
	}
	var out []Model
	for _, d := range resp.Data {
		if d.Type == "embeddings" {
			continue
		}
		out = append(out, Model{ID: d.ID, ContextWindow: d.MaxContextLength})
	}
	return out, nil
}
