package allowlist_test

import (
	"fmt"
	"testing"

	"musiccatalog/pkg/allowlist"
	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/store/twintest"
)

// BenchmarkAdd adds distinct channels (1,000 a list) on the bbolt twin:
// the cost of an add with its size counted in the same transaction.
func BenchmarkAdd(b *testing.B) {
	svc := allowlist.New(twintest.Bolt(b), clock.Real{})
	b.ResetTimer()
	for i := range b.N {
		o := allowlist.Owner{ClientID: "c1", EndUser: fmt.Sprint("u", i/1000)}
		if _, _, err := svc.Add(b.Context(), o, allowlist.AddInput{Provider: "youtube", ChannelID: fmt.Sprintf("UCabcdefghijklmnopq%05d", i%1000)}); err != nil {
			b.Fatal(err)
		}
	}
}
