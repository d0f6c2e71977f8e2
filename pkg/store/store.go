package store

import (
	"context"
	"errors"
	"time"
)

// Table names are logical; adapters map them to physical table names.
type Table string

// The tables of DESIGN.md §3. Each has the indexes listed in Indexes.
const (
	Accounts  Table = "Accounts"
	Playlists Table = "Playlists"
	Licenses  Table = "Licenses"
	Jobs      Table = "Jobs"
	Quotas    Table = "Quotas"
)

// AllTables lists every table the service uses, for adapters that create them.
var AllTables = []Table{Accounts, Playlists, Licenses, Jobs, Quotas}

// Indexes names the global secondary indexes of each table. An index named
// N is keyed by the item attributes N+"PK" (partition, string) and N+"SK"
// (sort, string); items without N+"PK" or N+"SK" are not in the index
// (as in DynamoDB, whose index has both keys).
var Indexes = map[Table][]string{
	Accounts:  {"GSI1"},
	Playlists: {"GSI1"},
	Licenses:  {"GSI1"},
	Jobs:      {"GSI1"},
	Quotas:    nil,
}

// ExpiresAtAttr is the attribute DynamoDB TTL is enabled on (unix seconds).
const ExpiresAtAttr = "expires_at"

// Errors every adapter returns (wrapped or bare; test with errors.Is).
var (
	ErrNotFound        = errors.New("store: item not found")
	ErrConditionFailed = errors.New("store: condition failed")
	// ErrContention: a transaction kept colliding with concurrent ones on
	// the same items (DynamoDB TransactionConflict), or a single write kept
	// meeting a transaction under way on its item, through the adapter's
	// own retries. Nothing was written; trying again may succeed.
	ErrContention = errors.New("store: contention")
)

// Key addresses one item: partition key and sort key (both non-empty strings).
type Key struct {
	PK string
	SK string
}

// Item is one stored record. Attribute values are restricted to
// string, int64, float64, bool and []byte; adapters accept int and int32 on
// write and always return int64. A number is returned as int64 whenever it
// is a whole number in int64 range, also when written as float64: DynamoDB
// keeps no difference between 2 and 2.0. Structured data is stored by
// repositories as JSON in a string or []byte attribute. Attribute names
// "PK", "SK" and ExpiresAtAttr are reserved.
type Item struct {
	Key
	Attrs map[string]any
	// ExpiresAt, when non-zero, makes the item expire: from that instant
	// every operation treats it as absent (Get, Query, conditions), and the
	// adapter eventually deletes it. Adapters keep whole seconds
	// (truncating), as DynamoDB TTL counts unix seconds.
	ExpiresAt time.Time
}

// Update changes an item in place, creating it when absent (like DynamoDB
// UpdateItem); add a NotExists/Exists condition to control that.
type Update struct {
	Set    map[string]any   // attributes to set
	Add    map[string]int64 // atomic counters: missing attributes start at 0
	Remove []string         // attributes to remove
	// ExpiresAt, when non-nil, sets (non-zero) or clears (zero) the expiry.
	ExpiresAt *time.Time
}

// Query reads items of one partition in sort-key order.
type Query struct {
	Index      string // "" for the table itself, else a name from Indexes
	PK         string // partition value (of the index when Index is set)
	SKPrefix   string // optional: only sort keys with this prefix
	SKFrom     string // optional inclusive lower bound of the sort key
	SKTo       string // optional inclusive upper bound of the sort key
	Descending bool
	Limit      int    // max items in the page; 0 means all remaining
	Cursor     string // opaque, from a previous Page; "" starts at the beginning
}

// Page is one page of a Query. Cursor is "" when there are no more items.
type Page struct {
	Items  []Item
	Cursor string
}

// TxOp is one write of a transaction; build it with TxPut, TxUpdate,
// TxDelete or TxCheck.
type TxOp struct {
	Table  Table
	Kind   TxKind
	Item   Item   // TxKindPut
	Key    Key    // TxKindUpdate, TxKindDelete, TxKindCheck
	Update Update // TxKindUpdate
	Cond   Condition
}

// TxKind says what a TxOp does.
type TxKind int

const (
	TxKindPut TxKind = iota + 1
	TxKindUpdate
	TxKindDelete
	TxKindCheck
)

func TxPut(t Table, it Item, c Condition) TxOp {
	return TxOp{Table: t, Kind: TxKindPut, Item: it, Cond: c}
}
func TxUpdate(t Table, k Key, u Update, c Condition) TxOp {
	return TxOp{Table: t, Kind: TxKindUpdate, Key: k, Update: u, Cond: c}
}
func TxDelete(t Table, k Key, c Condition) TxOp {
	return TxOp{Table: t, Kind: TxKindDelete, Key: k, Cond: c}
}
func TxCheck(t Table, k Key, c Condition) TxOp {
	return TxOp{Table: t, Kind: TxKindCheck, Key: k, Cond: c}
}

// Store is the item-store port.
type Store interface {
	// Get returns the item or ErrNotFound (also for an expired item).
	Get(ctx context.Context, t Table, k Key) (Item, error)
	// Put writes the whole item when cond holds (nil: always), else ErrConditionFailed.
	Put(ctx context.Context, t Table, it Item, cond Condition) error
	// Update applies u when cond holds and returns the item after the change.
	Update(ctx context.Context, t Table, k Key, u Update, cond Condition) (Item, error)
	// Delete removes the item when cond holds; deleting a missing item is not an error.
	Delete(ctx context.Context, t Table, k Key, cond Condition) error
	// Query returns one page of a partition.
	Query(ctx context.Context, t Table, q Query) (Page, error)
	// Transact applies all ops atomically (at most 100), or none of them and
	// returns ErrConditionFailed when any condition fails. As in DynamoDB,
	// no two ops may address the same item and a TxUpdate must change
	// something (TxCheck is the pure check).
	Transact(ctx context.Context, ops []TxOp) error
}

// Condition is a predicate on the current item (absent items have no
// attributes). Build with the functions below; nil means "always".
type Condition interface{ isCondition() }

type (
	// CondExists holds when the item exists (and is not expired).
	CondExists struct{}
	// CondNotExists holds when the item is absent or expired.
	CondNotExists struct{}
	// CondAttrExists holds when the item has the attribute.
	CondAttrExists struct{ Attr string }
	// CondAttrNotExists holds when the item lacks the attribute (or is absent).
	CondAttrNotExists struct{ Attr string }
	// CondEquals holds when the attribute equals Value (same type family).
	CondEquals struct {
		Attr  string
		Value any
	}
	// CondLessThan holds when the attribute exists and is < Value
	// (numbers compare numerically, strings lexically).
	CondLessThan struct {
		Attr  string
		Value any
	}
	// CondAnd holds when all hold; CondOr when any holds.
	CondAnd []Condition
	CondOr  []Condition
)

func (CondExists) isCondition()        {}
func (CondNotExists) isCondition()     {}
func (CondAttrExists) isCondition()    {}
func (CondAttrNotExists) isCondition() {}
func (CondEquals) isCondition()        {}
func (CondLessThan) isCondition()      {}
func (CondAnd) isCondition()           {}
func (CondOr) isCondition()            {}

func Exists() Condition                  { return CondExists{} }
func NotExists() Condition               { return CondNotExists{} }
func AttrExists(a string) Condition      { return CondAttrExists{a} }
func AttrNotExists(a string) Condition   { return CondAttrNotExists{a} }
func Equals(a string, v any) Condition   { return CondEquals{a, v} }
func LessThan(a string, v any) Condition { return CondLessThan{a, v} }
func And(cs ...Condition) Condition      { return CondAnd(cs) }
func Or(cs ...Condition) Condition       { return CondOr(cs) }
