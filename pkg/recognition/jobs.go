package recognition

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"

	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/quota"
	"musiccatalog/pkg/store"
)

// Job item attributes in the Jobs table. The pipeline keeps its
// intermediate results on the job (timeline, external) so every task can
// be re-run from the job alone.
const (
	attrClient      = "client_id"
	attrPlan        = "plan"
	attrStatus      = "status"
	attrProgress    = "progress"
	attrCreated     = "created_at"
	attrUpdated     = "updated_at"
	attrCompleted   = "completed_at"
	attrSourceKey   = "source_key"
	attrSourceETag  = "source_etag"
	attrSourceSize  = "source_size"
	attrFilename    = "filename"
	attrTimeline    = "timeline"
	attrExternal    = "external"
	attrHeard       = "outside_heard" // External's answers so far (heardSamples)
	attrResult      = "result"
	attrErrorCode   = "error_code"
	attrDetail      = "detail"
	attrRecoveries  = "recoveries"
	attrGeneration  = "generation" // how many times the job was written anew (execName)
	attrActivePK    = "GSI1PK"     // set only while queued or processing
	attrActiveSK    = "GSI1SK"
	activePartition = "RECOGNITION#ACTIVE"
)

func jobKey(id string) store.Key { return store.Key{PK: "RECOGNITION#" + id, SK: "JOB"} }

// jobRecord is a job with the pipeline's private state.
type jobRecord struct {
	Job
	plan       string
	updatedAt  time.Time
	timeline   []fingerprint.Stretch
	external   []externalResult
	hasTL      bool
	hasExt     bool
	heard      []sample
	recoveries int64
	generation int64
	// sizeButHeard is the stored item's size (store.ItemSize) without
	// attrHeard: what the item holds besides External's answers so far.
	sizeButHeard int
}

// resultDoc is the stored result of a completed job.
type resultDoc struct {
	Track    *Segment  `json:"track"`
	Segments []Segment `json:"segments"`
}

func (s *Service) loadJob(ctx context.Context, id string) (*jobRecord, error) {
	it, err := s.st.Get(ctx, store.Jobs, jobKey(id))
	if err != nil {
		return nil, err
	}
	return recordFromItem(id, it)
}

func recordFromItem(id string, it store.Item) (*jobRecord, error) {
	r := &jobRecord{
		Job: Job{
			ID: id, ClientID: it.Str(attrClient), Status: it.Str(attrStatus),
			ErrorCode: it.Str(attrErrorCode), Detail: it.Str(attrDetail),
			CreatedAt: it.Time(attrCreated), CompletedAt: it.Time(attrCompleted),
			Source: SourceRef{Key: it.Str(attrSourceKey), ETag: it.Str(attrSourceETag),
				Size: it.Int(attrSourceSize), Filename: it.Str(attrFilename)},
		},
		plan: it.Str(attrPlan), updatedAt: it.Time(attrUpdated), recoveries: it.Int(attrRecoveries),
		generation: it.Int(attrGeneration),
	}
	if p := it.Str(attrProgress); p != "" {
		r.Progress = &p
	}
	if b := it.Bytes(attrTimeline); b != nil {
		r.hasTL = true
		if err := json.Unmarshal(b, &r.timeline); err != nil {
			return nil, fmt.Errorf("job %s: timeline: %w", id, err)
		}
	}
	if b := it.Bytes(attrExternal); b != nil {
		r.hasExt = true
		if err := json.Unmarshal(b, &r.external); err != nil {
			return nil, fmt.Errorf("job %s: external: %w", id, err)
		}
	}
	r.sizeButHeard = store.ItemSize(it)
	if b := it.Bytes(attrHeard); b != nil {
		rest := it
		rest.Attrs = maps.Clone(it.Attrs)
		delete(rest.Attrs, attrHeard)
		r.sizeButHeard = store.ItemSize(rest)
		if err := json.Unmarshal(b, &r.heard); err != nil {
			return nil, fmt.Errorf("job %s: outside answers: %w", id, err)
		}
	}
	if b := it.Bytes(attrResult); b != nil {
		var doc resultDoc
		if err := json.Unmarshal(b, &doc); err != nil {
			return nil, fmt.Errorf("job %s: result: %w", id, err)
		}
		r.Track, r.Segments = doc.Track, doc.Segments
		if r.Segments == nil {
			r.Segments = []Segment{}
		}
	}
	return r, nil
}

// active is the condition of every pipeline write: the job is still
// queued or processing. A job that completed or failed is never changed
// again, which makes late or repeated task runs harmless.
func active() store.Condition {
	return store.Or(store.Equals(attrStatus, StatusQueued), store.Equals(attrStatus, StatusProcessing))
}

// activeAt is active() for the job's generation gen (0: any): a task of
// an execution started for an earlier writing of the job must not work on
// the job written anew (TaskInput.Generation).
func activeAt(gen int64) store.Condition {
	if gen <= 0 {
		return active()
	}
	return store.And(active(), store.Equals(attrGeneration, gen))
}

// errInactive means the job is gone, completed or failed: the task has
// nothing left to do.
var errInactive = errors.New("recognition: job is not active")

// updateActive applies set to the job while it is active, stamping
// updated_at, and reports errInactive otherwise.
func (s *Service) updateActive(ctx context.Context, id string, gen int64, set map[string]any, remove ...string) error {
	u := map[string]any{attrUpdated: store.UnixNano(s.clock.Now())}
	for k, v := range set {
		u[k] = v
	}
	_, err := s.st.Update(ctx, store.Jobs, jobKey(id), store.Update{Set: u, Remove: remove}, store.And(store.Exists(), activeAt(gen)))
	if errors.Is(err, store.ErrConditionFailed) {
		return errInactive
	}
	return err
}

// finalize ends an active job: status, its attributes, the expiry, and
// off the active index, in one conditional write.
func (s *Service) finalize(ctx context.Context, id string, gen int64, set map[string]any) (store.Item, error) {
	it, err := s.st.Update(ctx, store.Jobs, jobKey(id), s.endUpdate(set), store.And(store.Exists(), activeAt(gen)))
	if errors.Is(err, store.ErrConditionFailed) {
		return store.Item{}, errInactive
	}
	return it, err
}

// endUpdate is the write that ends a job with set.
func (s *Service) endUpdate(set map[string]any) store.Update {
	now := s.clock.Now()
	set[attrUpdated] = store.UnixNano(now)
	set[attrCompleted] = store.UnixNano(now)
	exp := now.Add(s.retention)
	return store.Update{
		Set:       set,
		Remove:    []string{attrProgress, attrActivePK, attrActiveSK, attrTimeline, attrExternal, attrHeard},
		ExpiresAt: &exp,
	}
}

// endRefunded ends the job with set when cond holds and gives back its
// daily quota unit (its submit day's) in the same transaction: a job
// that produced no result costs nothing, the conditional write makes the
// unit come back at most once, and no crash between two writes can keep
// it taken. errInactive when cond does not hold.
func (s *Service) endRefunded(ctx context.Context, id string, set map[string]any, cond store.Condition) error {
	it, err := s.st.Get(ctx, store.Jobs, jobKey(id))
	if errors.Is(err, store.ErrNotFound) {
		return errInactive
	}
	if err != nil {
		return err
	}
	client, created := it.Str(attrClient), it.Time(attrCreated)
	u := s.endUpdate(set)
	// The client and submit time pin the counter the unit goes back to.
	jobCond := store.And(store.Exists(), cond, store.Equals(attrClient, client), store.Equals(attrCreated, store.UnixNano(created)))
	err = s.st.Transact(ctx, []store.TxOp{
		store.TxUpdate(store.Jobs, jobKey(id), u, jobCond),
		s.quota.GiveBackOp(QuotaScope, client, quota.Daily, created),
	})
	if !errors.Is(err, store.ErrConditionFailed) {
		return err
	}
	// The job changed meanwhile, or its day's counter has expired (then
	// there is nothing to give back): end it alone if it still may be.
	_, err = s.st.Update(ctx, store.Jobs, jobKey(id), u, store.And(store.Exists(), cond))
	if errors.Is(err, store.ErrConditionFailed) {
		return errInactive
	}
	return err
}
