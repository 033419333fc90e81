package openapi

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkOpenSpaceTraders measures loading the SpaceTraders spec (59 operations,
// references across ~100 files) and building both catalogues.
func BenchmarkOpenSpaceTraders(b *testing.B) {
	spec := needSpaceTraders(b)
	for _, catalog := range []string{CatalogOps, CatalogGrouped} {
		b.Run(catalog, func(b *testing.B) {
			for b.Loop() {
				if _, err := Open(context.Background(), Config{Spec: spec, BaseURL: "http://127.0.0.1:9/v2", Catalog: catalog}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSummarize measures summarising a 1 MB JSON response to the 8 KB output.
func BenchmarkSummarize(b *testing.B) {
	var items []string
	for i := 0; len(strings.Join(items, ",")) < 1<<20; i++ {
		items = append(items, fmt.Sprintf(`{"symbol":"X1-%04d","traits":[{"name":"t","description":%q}],"x":%d}`, i, strings.Repeat("words ", 40), i))
	}
	body := []byte(`{"data":[` + strings.Join(items, ",") + `],"meta":{"total":` + fmt.Sprint(len(items)) + `}}`)
	b.SetBytes(int64(len(body)))
	var out string
	for b.Loop() {
		out, _ = summarize(body, outputLimit)
	}
	b.ReportMetric(float64(len(out)), "out-bytes")
}
