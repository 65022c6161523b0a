package otel

import (
	"context"
	"log/slog"
	"testing"

	"github.com/cairnhq/cairn/core/egress"
)

// TestOffUnlessConfigured: no exporter exists unless an OTLP endpoint or exporter is set, and
// OTEL_SDK_DISABLED wins over both (README "OpenTelemetry").
func TestOffUnlessConfigured(t *testing.T) {
	for _, c := range []struct {
		name                   string
		env                    map[string]string
		traces, metrics, grpcT bool
	}{
		{"nothing", nil, false, false, false},
		{"unrelated variables", map[string]string{"OTEL_SERVICE_NAME": "x", "OTEL_RESOURCE_ATTRIBUTES": "a=b"}, false, false, false},
		{"one endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, true, true, false},
		{"traces only", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, true, false, false},
		{"an exporter switched off", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_METRICS_EXPORTER": "none"}, true, false, false},
		{"otlp without an endpoint: the default one", map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true, false, false},
		{"grpc", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, true, true, true},
		{"disabled", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"}, false, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			get := func(k string) string { return c.env[k] }
			tr, m := signalOf(get, "TRACES"), signalOf(get, "METRICS")
			if tr.on != c.traces || m.on != c.metrics || tr.grpc != c.grpcT {
				t.Errorf("traces %+v, metrics %+v", tr, m)
			}
			if !c.traces && !c.metrics {
				rec, stop, err := Setup(context.Background(), get, "test", egress.Config{}, slog.New(slog.DiscardHandler))
				if rec != nil || err != nil || stop(context.Background()) != nil {
					t.Errorf("a recorder without configuration: %v %v", rec, err)
				}
			}
		})
	}
}
