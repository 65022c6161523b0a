package otlptest_test

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"

	colmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/cairnhq/cairn/server/internal/otlptest"
)

func traces(name, service string) *coltrace.ExportTraceServiceRequest {
	return &coltrace.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{
			{Key: "service.name", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: service}}},
		}},
		ScopeSpans: []*tracepb.ScopeSpans{{Spans: []*tracepb.Span{{Name: name}}}},
	}}}
}

func metrics(name string) *colmetrics.ExportMetricsServiceRequest {
	return &colmetrics.ExportMetricsServiceRequest{ResourceMetrics: []*metricspb.ResourceMetrics{{
		ScopeMetrics: []*metricspb.ScopeMetrics{{Metrics: []*metricspb.Metric{{Name: name}}}},
	}}}
}

// TestCollector: what is exported over OTLP/HTTP and OTLP/gRPC to one collector is recorded,
// spans with their resources and metrics by name.
func TestCollector(t *testing.T) {
	c := otlptest.New()

	url := c.StartHTTP(t)
	post := func(path string, m proto.Message) {
		body, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.Post(url+path, "application/x-protobuf", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST %s: %s", path, resp.Status)
		}
	}
	post("/v1/traces", traces("over-http", "a"))
	post("/v1/metrics", metrics("http.metric"))

	endpoint := c.StartGRPC(t)
	conn, err := grpc.NewClient(strings.TrimPrefix(endpoint, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	ctx := context.Background()
	if _, err := coltrace.NewTraceServiceClient(conn).Export(ctx, traces("over-grpc", "b")); err != nil {
		t.Fatal(err)
	}
	if _, err := colmetrics.NewMetricsServiceClient(conn).Export(ctx, metrics("grpc.metric")); err != nil {
		t.Fatal(err)
	}

	var names []string
	for _, s := range c.Spans() {
		names = append(names, s.GetName())
	}
	if !slices.Equal(names, []string{"over-http", "over-grpc"}) {
		t.Errorf("spans %v", names)
	}
	if got := c.SpansNamed("over-grpc"); len(got) != 1 {
		t.Errorf("spans named over-grpc: %v", got)
	}
	var services []string
	for _, r := range c.Resources() {
		services = append(services, otlptest.Attr(r.GetAttributes(), "service.name").GetStringValue())
	}
	if !slices.Equal(services, []string{"a", "b"}) {
		t.Errorf("resources' services %v", services)
	}
	if got := c.Metrics(); !slices.Equal(got, []string{"http.metric", "grpc.metric"}) {
		t.Errorf("metrics %v", got)
	}
	if otlptest.Attr(nil, "missing") != nil {
		t.Error("Attr found a missing key")
	}
}
