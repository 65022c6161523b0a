package openai

import (
	"strings"

	goopenai "github.com/sashabaranov/go-openai"
)

// Azure names an Azure OpenAI deployment. Azure routes by deployment rather than by model
// name and authenticates with an api-key header; go-openai's Azure mode builds those URLs.
type Azure struct {
	// Endpoint is the resource's address, e.g. "https://my-resource.openai.azure.com".
	Endpoint string
	// Deployment is the deployment to call; "" uses the model name (dots removed), which is
	// how deployments are often named.
	Deployment string
	// APIVersion is the api-version query parameter; "" keeps go-openai's default.
	APIVersion string
}

func (a *Azure) config(apiKey string) goopenai.ClientConfig {
	oc := goopenai.DefaultAzureConfig(apiKey, strings.TrimRight(a.Endpoint, "/"))
	if a.APIVersion != "" {
		oc.APIVersion = a.APIVersion
	}
	if d := a.Deployment; d != "" {
		oc.AzureModelMapperFunc = func(string) string { return d }
	}
	return oc
}
