package search

import (
	"fmt"
	"sync"
	"testing"

	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/demo"
	"musiccatalog/pkg/search/searchtest"
)

var demoIndexes sync.Map // n -> *Index

// demoIndex indexes the demo metadata catalog of n tracks (cached per test binary).
func demoIndex(tb testing.TB, n int) *Index {
	tb.Helper()
	key := fmt.Sprint(n)
	if ix, ok := demoIndexes.Load(key); ok {
		return ix.(*Index)
	}
	cat, err := catalog.New(searchtest.DemoContents(tb, n, demo.DefaultSeed, true))
	if err != nil {
		tb.Fatal(err)
	}
	ix, err := NewIndex(cat)
	if err != nil {
		tb.Fatal(err)
	}
	demoIndexes.Store(key, ix)
	return ix
}
