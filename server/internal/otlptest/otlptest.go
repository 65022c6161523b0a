// Package otlptest is for tests: a fake OpenTelemetry collector that records what is exported
// to it over OTLP/HTTP (protobuf bodies) and OTLP/gRPC, its traces and its metrics, decoded.
package otlptest

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	colmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// Collector is an in-process OTLP collector: what it received, decoded. One Collector may be
// served over HTTP and gRPC at once; it records what either receives.
type Collector struct {
	// mu guards what follows.
	mu        sync.Mutex
	spans     []*tracepb.Span
	resources []*resourcepb.Resource
	metrics   []string // metric names
}

// New makes a Collector that has received nothing yet.
func New() *Collector { return &Collector{} }

// Spans returns the spans received so far, in the order they arrived.
func (c *Collector) Spans() []*tracepb.Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.spans)
}

// SpansNamed returns the spans received so far with the name, in the order they arrived.
func (c *Collector) SpansNamed(name string) []*tracepb.Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*tracepb.Span
	for _, s := range c.spans {
		if s.GetName() == name {
			out = append(out, s)
		}
	}
	return out
}

// Resources returns the resource of each batch of spans received so far, in the order they
// arrived.
func (c *Collector) Resources() []*resourcepb.Resource {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.resources)
}

// Metrics returns the names of the metrics received so far, in the order they arrived, once
// per export of each.
func (c *Collector) Metrics() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.metrics)
}

func (c *Collector) addTraces(req *coltrace.ExportTraceServiceRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range req.GetResourceSpans() {
		c.resources = append(c.resources, rs.GetResource())
		for _, ss := range rs.GetScopeSpans() {
			c.spans = append(c.spans, ss.GetSpans()...)
		}
	}
}

func (c *Collector) addMetrics(req *colmetrics.ExportMetricsServiceRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rm := range req.GetResourceMetrics() {
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				c.metrics = append(c.metrics, m.GetName())
			}
		}
	}
}

// traceServer and metricsServer are the gRPC services (their Export methods differ).
type traceServer struct {
	coltrace.UnimplementedTraceServiceServer
	c *Collector
}

func (s traceServer) Export(_ context.Context, req *coltrace.ExportTraceServiceRequest) (*coltrace.ExportTraceServiceResponse, error) {
	s.c.addTraces(req)
	return &coltrace.ExportTraceServiceResponse{}, nil
}

type metricsServer struct {
	colmetrics.UnimplementedMetricsServiceServer
	c *Collector
}

func (s metricsServer) Export(_ context.Context, req *colmetrics.ExportMetricsServiceRequest) (*colmetrics.ExportMetricsServiceResponse, error) {
	s.c.addMetrics(req)
	return &colmetrics.ExportMetricsServiceResponse{}, nil
}

// Handler is OTLP/HTTP with protobuf bodies (/v1/traces and /v1/metrics), for a server of the
// test's own making (a TLS one, say); a body that does not decode fails the test.
func (c *Collector) Handler(t testing.TB) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var resp proto.Message
		switch r.URL.Path {
		case "/v1/traces":
			req := &coltrace.ExportTraceServiceRequest{}
			if err := proto.Unmarshal(body, req); err != nil {
				t.Errorf("traces: %v", err)
			}
			c.addTraces(req)
			resp = &coltrace.ExportTraceServiceResponse{}
		case "/v1/metrics":
			req := &colmetrics.ExportMetricsServiceRequest{}
			if err := proto.Unmarshal(body, req); err != nil {
				t.Errorf("metrics: %v", err)
			}
			c.addMetrics(req)
			resp = &colmetrics.ExportMetricsServiceResponse{}
		default:
			http.NotFound(w, r)
			return
		}
		out, err := proto.Marshal(resp)
		if err != nil {
			t.Error(err)
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
		if _, err := w.Write(out); err != nil {
			t.Logf("OTLP/HTTP reply: %v", err) // the exporter reports it too
		}
	})
}

// StartHTTP serves the collector over OTLP/HTTP without TLS until the test ends and returns
// its endpoint, "http://127.0.0.1:port". (It is not an http.Handler's method: see Handler.)
func (c *Collector) StartHTTP(t testing.TB) string {
	t.Helper()
	srv := httptest.NewServer(c.Handler(t))
	t.Cleanup(srv.Close)
	return srv.URL
}

// StartGRPC serves the collector's trace and metrics services over OTLP/gRPC until the test
// ends and returns its endpoint, "http://127.0.0.1:port"; opts are the server's (its TLS
// credentials, say: the endpoint then takes https and a name the certificate holds).
func (c *Collector) StartGRPC(t testing.TB, opts ...grpc.ServerOption) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := grpc.NewServer(opts...)
	coltrace.RegisterTraceServiceServer(g, traceServer{c: c})
	colmetrics.RegisterMetricsServiceServer(g, metricsServer{c: c})
	go func() { _ = g.Serve(lis) }() // ends with Stop below
	t.Cleanup(g.Stop)
	return "http://" + lis.Addr().String()
}

// Attr is the value of the attribute with the key, or nil (whose getters return zero values).
func Attr(kvs []*commonpb.KeyValue, key string) *commonpb.AnyValue {
	for _, kv := range kvs {
		if kv.GetKey() == key {
			return kv.GetValue()
		}
	}
	return nil
}
