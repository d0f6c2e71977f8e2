package identity_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/store/twintest"
)

// revokeDuringIssue is a store on which, once armed, the next write of a
// token is preceded by a revocation of all the client's tokens: an
// operator's `clients revoke --client` landing between the read of the
// client and the write of the token another one is issuing.
type revokeDuringIssue struct {
	store.Store
	admin  *identity.Service // on the inner store
	client string
	armed  atomic.Bool
	err    error
}

func (r *revokeDuringIssue) issuing(ctx context.Context, items ...store.Item) {
	for _, it := range items {
		if strings.HasPrefix(it.Key.PK, "TOKEN#") && r.armed.CompareAndSwap(true, false) {
			_, r.err = r.admin.RevokeClientTokens(ctx, r.client)
		}
	}
}

func (r *revokeDuringIssue) Put(ctx context.Context, t store.Table, it store.Item, c store.Condition) error {
	r.issuing(ctx, it)
	return r.Store.Put(ctx, t, it, c)
}

func (r *revokeDuringIssue) Transact(ctx context.Context, ops []store.TxOp) error {
	for _, op := range ops {
		if op.Kind == store.TxKindPut {
			r.issuing(ctx, op.Item)
		}
	}
	return r.Store.Transact(ctx, ops)
}

// TestTokenIssuedDuringARevocationWorks: a key or user token whose
// issue overlaps a revocation of all the client's tokens is answered as
// issued, so it must work; before, it carried the epoch read before the
// revocation and was refused from its first use (Token has been revoked).
// Tokens issued before the revocation stay refused.
func TestTokenIssuedDuringARevocationWorks(t *testing.T) {
	for _, tw := range twintest.Twins() {
		t.Run(tw.Name, func(t *testing.T) {
			ctx := context.Background()
			inner := tw.Open(t)
			c := clock.NewManual(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
			admin := identity.New(inner, c, ids.Random{}, 0)
			st := &revokeDuringIssue{Store: inner, admin: admin}
			svc := identity.New(st, c, ids.Random{}, 0)
			cl, first, err := svc.CreateClient(ctx, identity.NewClient{Name: "A", Plan: identity.PlanEnterprise})
			if err != nil {
				t.Fatal(err)
			}
			st.client = cl.ID

			st.armed.Store(true)
			key, err := svc.CreateToken(ctx, cl.ID, "", time.Time{})
			if err != nil || st.err != nil {
				t.Fatalf("CreateToken during a revocation: %v (revocation: %v)", err, st.err)
			}
			if _, err := svc.Authenticate(ctx, key); err != nil {
				t.Errorf("the key answered as issued: %v; want it to work", err)
			}

			st.armed.Store(true)
			u, userTok, err := svc.CreateUser(ctx, cl.ID, "alice", "Alice")
			if err != nil || st.err != nil {
				t.Fatalf("CreateUser during a revocation: %v (revocation: %v)", err, st.err)
			}
			if p, err := svc.Authenticate(ctx, userTok); err != nil || p.User == nil || p.User.ID != u.ID {
				t.Errorf("the user token answered as issued: %+v, %v; want it to work", p, err)
			}
			if _, _, err := svc.CreateUser(ctx, cl.ID, "ALICE", "Alice again"); err == nil {
				t.Errorf("a second user of the same name was created")
			}
			for name, tok := range map[string]string{"first key": first, "key before the second revocation": key} {
				if _, err := svc.Authenticate(ctx, tok); err == nil {
					t.Errorf("%s still works after a revocation", name)
				}
			}
		})
	}
}
