package recognition

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/fpindex"
	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/idempotency"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/outside"
	"musiccatalog/pkg/quota"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/workflow"
)

// Machine is the workflow name of the pipeline (the state machine
// infra/statemachines/recognition.asl.json).
const Machine = "recognition"

// Defaults of Config.
const (
	// DefaultDailyCap is the recognition quota of a partnership without
	// its own (interface.md §8: the numeric cap is not shown).
	DefaultDailyCap = 100
	// Retention keeps results about a day after completion (§8).
	Retention = 24 * time.Hour
	// DefaultStaleAfter: a job whose pipeline wrote nothing for this long
	// is failed with CodeTimeout when read, however its workflow ended.
	// It exceeds the longest a task can take with its retries.
	DefaultStaleAfter = 30 * time.Minute
	// DefaultMaxAudioSeconds bounds the audio of one video.
	DefaultMaxAudioSeconds = 3600
	// MaxFileSize is the largest upload a job reads (interface.md §8,
	// "100 MB"); the upload trigger deletes larger objects unread.
	MaxFileSize int64 = 100 * 1000 * 1000
	// MaxRecoveries: a job interrupted by more process restarts than this
	// is failed with CodeInterrupted instead of being resumed again.
	MaxRecoveries = 2
	// pendingTTL removes the records of jobs that never ended (a safety
	// net: Get fails stale jobs long before).
	pendingTTL = 7 * 24 * time.Hour
)

// QuotaScope is the quota scope of recognition submits (§7.2 scope_code).
const QuotaScope = identity.ScopeComplianceCheck

// Vectorizer places audio in the catalog's similarity space: the vector
// compares by cosine with catalog.Track.Features of the same snapshot.
// Recognition uses it to suggest catalog alternatives to outside music.
type Vectorizer interface {
	Vector(ctx context.Context, cat *catalog.Catalog, pcm audio.PCM) ([]float32, error)
}

// Config holds a Service's dependencies; zero optional fields take
// defaults.
type Config struct {
	Store    store.Store
	Blob     blob.Store
	Catalog  catalog.Source
	Workflow workflow.Starter
	Clock    clock.Clock // default clock.Real
	IDs      ids.Source  // default ids.Random
	Log      *slog.Logger
	// Decoder decodes the uploaded videos (ffmpeg).
	Decoder decode.Decoder
	// Outside is the outside recognizer; nil turns the outside tier off
	// (unexplained music is then reported unidentified).
	Outside outside.Recognizer
	// OutsideSamples bounds the samples (billed requests) one job sends
	// to the outside recognizer; 0 means DefaultOutsideSamples.
	OutsideSamples int
	// Vectorizer, when set, gives outside matches suggestions by sound;
	// without it only plan-excluded catalog tracks get suggestions.
	Vectorizer Vectorizer
	// Fingerprints, when set, is the catalog fingerprint index shared
	// with the process's other users (one copy in memory).
	Fingerprints    *fpindex.Index
	DefaultDailyCap int64
	MaxAudioSeconds float64
	// MaxFileSize bounds the uploads read (default MaxFileSize).
	MaxFileSize int64
	StaleAfter  time.Duration
}

// Service runs recognition jobs.
type Service struct {
	st         store.Store
	blob       blob.Store
	catalog    catalog.Source
	wf         workflow.Starter
	clock      clock.Clock
	ids        ids.Source
	log        *slog.Logger
	decoder    decode.Decoder
	outside    outside.Recognizer
	vectorizer Vectorizer
	quota      *quota.Counter
	dailyCap   int64
	maxSeconds float64
	maxBytes   int64
	staleAfter time.Duration
	retention  time.Duration

	prepMu    sync.Mutex
	preparing map[string]*prepareCall // work dirs being computed, by workDir

	index *fpindex.Index

	// outsideSamples is the outside tier's budget per job.
	outsideSamples int
}

// New returns a Service.
func New(cfg Config) (*Service, error) {
	if cfg.Store == nil || cfg.Blob == nil || cfg.Catalog == nil || cfg.Workflow == nil {
		return nil, errors.New("recognition: Store, Blob, Catalog and Workflow are required")
	}
	s := &Service{
		st: cfg.Store, blob: cfg.Blob, catalog: cfg.Catalog, wf: cfg.Workflow,
		clock: cfg.Clock, ids: cfg.IDs, log: cfg.Log, decoder: cfg.Decoder,
		outside: cfg.Outside, vectorizer: cfg.Vectorizer,
		dailyCap: cfg.DefaultDailyCap, maxSeconds: cfg.MaxAudioSeconds, maxBytes: cfg.MaxFileSize, staleAfter: cfg.StaleAfter,
		retention: Retention, index: cfg.Fingerprints,
	}
	if s.index == nil {
		s.index = &fpindex.Index{Blob: cfg.Blob}
	}
	if s.clock == nil {
		s.clock = clock.Real{}
	}
	if s.ids == nil {
		s.ids = ids.Random{}
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.dailyCap <= 0 {
		s.dailyCap = DefaultDailyCap
	}
	if s.maxSeconds <= 0 {
		s.maxSeconds = DefaultMaxAudioSeconds
	}
	if s.maxBytes <= 0 {
		s.maxBytes = MaxFileSize
	}
	if s.staleAfter <= 0 {
		s.staleAfter = DefaultStaleAfter
	}
	if s.outsideSamples = cfg.OutsideSamples; s.outsideSamples <= 0 {
		s.outsideSamples = DefaultOutsideSamples
	}
	// Longer audio is too_long: refused from the container's duration
	// before decoding, or when decoding passes the cap.
	s.decoder.TooLongAfter = s.maxSeconds
	if s.decoder.MinSeconds <= 0 {
		// Shorter audio cannot be told apart from chance matches: it
		// fails as too_short instead of completing as "no music".
		s.decoder.MinSeconds = MinAudioSeconds
	}
	s.quota = quota.New(s.st, s.clock)
	return s, nil
}

// MinAudioSeconds is the shortest video audio a job analyzes.
const MinAudioSeconds = 2.0

// TaskInput is the input of every task of the state machine: the
// execution's input, passed whole (no path is required of it).
type TaskInput struct {
	JobID string `json:"job_id"`
	// Generation is the job's writing the execution was started for (see
	// execName); a task of an execution started for an earlier one
	// leaves the job alone; 0 or absent (a job written before
	// generations, an execution started before they were passed) works
	// on any.
	Generation int64 `json:"generation"`
	// Error is what the Catch path caught (ResultPath $.error): the task
	// then fails the job (MarkFailed). Failed marks it too in the input
	// of definitions before the whole input was passed.
	Failed bool         `json:"failed,omitempty"`
	Error  *CaughtError `json:"error,omitempty"`
}

// DailyCap is the recognition quota of a client.
func (s *Service) DailyCap(c identity.Client) int64 {
	if c.Quotas.RecognitionDailyCap > 0 {
		return c.Quotas.RecognitionDailyCap
	}
	return s.dailyCap
}

// submitAttempts bounds how often Submit retries its transaction when it
// keeps colliding with concurrent ones (store.ErrContention).
const submitAttempts = 4

// Submit creates a queued job for src and starts its pipeline. The daily
// quota unit is taken in the same transaction that creates the job, so
// concurrent submits never exceed the cap and a failed creation takes
// nothing; over the cap it returns a wrapped *quota.ExceededError.
//
// Under an Idempotency-Key (idempotency.RequestIDFrom(ctx)) the job is
// named by the request's RequestID, so a retry whose first run wrote the
// job but lost its answer (an error after the write, a crash) returns
// that job as it is now (started, if still queued) and takes no second
// unit: its Source tells the caller that src was not used. A job of the request whose pipeline never
// started (CodeStartFailed: the run answered 503 and gave its unit back)
// is not returned: the retry submits it again in place, with src and a
// new unit, so however many runs of the request there are, it has one job.
func (s *Service) Submit(ctx context.Context, p *identity.Principal, src SourceRef) (Job, error) {
	const op = "recognition.Submit"
	if p == nil || p.Client.ID == "" {
		return Job{}, errs.E(op, errs.Unauthenticated, "Authentication credentials were not provided.")
	}
	if src.Key == "" {
		return Job{}, errs.E(op, errs.Invalid, "Provide exactly one of `file` or `storage_key`.")
	}
	requestID := idempotency.RequestIDFrom(ctx)
	for attempt := 0; ; attempt++ {
		job, retry, err := s.submit(ctx, p, src, requestID)
		if !retry || attempt == 1 {
			return job, err
		}
		// Another run of this very request wrote the job meanwhile (a
		// lapsed claim): what it wrote decides.
	}
}

// submit is one Submit; retry when the job's write found its id taken by
// another run of the same request.
func (s *Service) submit(ctx context.Context, p *identity.Principal, src SourceRef, requestID string) (job Job, retry bool, err error) {
	const op = "recognition.Submit"
	now := s.clock.Now()
	id, prior, err := idempotency.CreateID(ctx, requestID, p.Client.ID, now, s.ids.UUID, s.earlierJob)
	if err != nil {
		return Job{}, false, errs.Wrap(op, err)
	}
	create := store.NotExists()
	if prior != nil {
		if !neverStarted(prior) {
			s.log.Info("recognition submit retried; returning the job it created", "job", prior.ID, "status", prior.Status)
			if prior.Status == StatusQueued && prior.Progress == nil {
				// The earlier run may have stopped before its Start; the
				// execution name is the job's (execName), so a pipeline
				// that did begin is not run twice. A failure is left to
				// the polls' restart (restartUnstarted).
				if err := s.start(ctx, prior.ID, prior.generation); err != nil {
					s.log.Error("starting a retried submit's job", "job", prior.ID, "err", err)
				}
			}
			return prior.Job, false, nil
		}
		// Replace the ended record, only as it was read.
		create = store.And(store.Exists(), store.Equals(attrStatus, StatusFailed), store.Equals(attrErrorCode, CodeStartFailed),
			store.Equals(attrCreated, store.UnixNano(prior.CreatedAt)))
	}
	// A job written anew gets an execution name of its own: its first
	// run's Start may have created an execution after all (an answer
	// lost to a timeout), and a name once used never starts again.
	gen := int64(1)
	if prior != nil {
		gen = max(prior.generation, 1) + 1
	}
	cap := s.DailyCap(p.Client)
	job = Job{
		ID: id, ClientID: p.Client.ID, Status: StatusQueued, CreatedAt: now, Source: src,
	}
	item := store.Item{
		Key: jobKey(job.ID),
		Attrs: map[string]any{
			attrClient: job.ClientID, attrPlan: string(p.Client.Plan), attrStatus: StatusQueued,
			attrCreated: store.UnixNano(now), attrUpdated: store.UnixNano(now),
			attrSourceKey: src.Key, attrSourceETag: normETag(src.ETag), attrSourceSize: src.Size, attrFilename: src.Filename,
			attrActivePK: activePartition, attrActiveSK: now.UTC().Format(time.RFC3339Nano) + "#" + job.ID,
			attrGeneration: gen,
		},
		ExpiresAt: now.Add(pendingTTL),
	}
	take, _ := s.quota.TakeOp(QuotaScope, p.Client.ID, quota.Daily, cap, now)
	for range submitAttempts {
		// Every submit of a client updates its one counter: under a burst
		// the transactions collide and the store's own retries may run out.
		// Nothing was written then, so the same write is tried again.
		if err = s.st.Transact(ctx, []store.TxOp{take, store.TxPut(store.Jobs, item, create)}); !errors.Is(err, store.ErrContention) {
			break
		}
		s.log.Warn("recognition submit contended; retrying", "client", p.Client.ID, "err", err)
	}
	if errors.Is(err, store.ErrConditionFailed) {
		if requestID != "" && s.rewritten(ctx, id, prior) {
			return Job{}, true, errs.Wrap(op, err)
		}
		if qerr := s.quota.Exceeded(ctx, QuotaScope, p.Client.ID, quota.Daily, cap, now); qerr != nil {
			return Job{}, false, fmt.Errorf("%s: %w", op, qerr)
		}
	}
	if err != nil {
		return Job{}, false, errs.Wrap(op, err)
	}
	job.Source.ETag = normETag(src.ETag)
	if err := s.start(ctx, job.ID, gen); err != nil {
		s.log.Error("recognition pipeline did not start", "job", job.ID, "err", err)
		// Nothing will run: end the job visibly (which gives the unit back).
		if ferr := s.Fail(context.WithoutCancel(ctx), job.ID, CodeStartFailed, detailStartFailed); ferr != nil {
			// The job stays queued with its unit and reads its source:
			// an internal error keeps the upload (the handler deletes
			// it only on a refusal), and a retry under the key gets the
			// job and starts it, or the polls' restart does.
			s.log.Error("failing an unstarted job", "job", job.ID, "err", ferr)
			return Job{}, false, &errs.Error{Op: op, Kind: errs.Internal, Err: errors.Join(err, ferr)}
		}
		return Job{}, false, &errs.Error{Op: op, Kind: errs.Unavailable, Detail: "Recognition is temporarily unavailable; try again shortly.", Err: err}
	}
	return job, false, nil
}

// earlierJob reads the job an earlier run of a request may have written
// (idempotency.CreateID): its client made it, at its creation time.
func (s *Service) earlierJob(ctx context.Context, id string) (jobRecord, idempotency.Earlier, bool, error) {
	r, err := s.loadJob(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return jobRecord{}, idempotency.Earlier{}, false, nil
	}
	if err != nil {
		return jobRecord{}, idempotency.Earlier{}, false, err
	}
	return *r, idempotency.Earlier{Owner: r.ClientID, Created: r.CreatedAt}, true, nil
}

// rewritten reports whether the job named id is no longer as submit read
// it (prior, nil when there was none): another run wrote it meanwhile.
func (s *Service) rewritten(ctx context.Context, id string, prior *jobRecord) bool {
	r, _, found, err := s.earlierJob(ctx, id)
	return err == nil && found && (prior == nil || !r.CreatedAt.Equal(prior.CreatedAt))
}

// neverStarted: the job's pipeline could not be started and its unit was
// given back (Submit answered 503); nothing of it is worth returning.
func neverStarted(r *jobRecord) bool {
	return r.Status == StatusFailed && r.ErrorCode == CodeStartFailed
}

// start starts the job's workflow under execName, so starting twice runs
// it once.
func (s *Service) start(ctx context.Context, id string, generation int64) error {
	return s.wf.Start(ctx, Machine, execName(id, generation), TaskInput{JobID: id, Generation: generation})
}

// execName is the execution name of the job's generation-th writing: the
// job id for the first (and for jobs written before generations), then
// id-gN. Step Functions never reuses a Standard execution's name, so a job
// written anew after a start that may have created one needs its own.
func execName(id string, generation int64) string {
	if generation <= 1 {
		return id
	}
	return id + "-g" + strconv.FormatInt(generation, 10)
}

// Get returns the client's job. Unknown, expired and other clients' jobs
// are all errs.NotFound. A job whose pipeline stopped writing long ago is
// failed here with CodeTimeout, so no job stays in progress forever.
func (s *Service) Get(ctx context.Context, clientID, jobID string) (Job, error) {
	const op = "recognition.Get"
	notFound := errs.E(op, errs.NotFound, "Recognition job not found or expired; submit again.")
	id, ok := ids.CanonicalUUID(jobID)
	if !ok {
		return Job{}, notFound
	}
	r, err := s.loadJob(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return Job{}, notFound
	}
	if err != nil {
		return Job{}, errs.Wrap(op, err)
	}
	if r.ClientID != clientID {
		return Job{}, notFound
	}
	if (r.Status == StatusQueued || r.Status == StatusProcessing) && s.clock.Now().Sub(r.updatedAt) > s.staleAfter {
		if err := s.failStale(ctx, r); err != nil {
			return Job{}, errs.Wrap(op, err)
		}
		if r, err = s.loadJob(ctx, id); err != nil {
			return Job{}, errs.Wrap(op, err)
		}
	}
	if r.Status == StatusQueued && r.Progress == nil {
		s.restartUnstarted(ctx, r)
	}
	return r.Job, nil
}

// restartUnstarted starts the workflow of a job still queued with no
// progress past workflow.StartGrace: a crash between Submit's write and
// its Start left it so (the first task records its progress at once).
// The execution name is the job's (execName), so a job whose pipeline
// did begin is not run twice; its quota unit was taken once, by Submit. A failure is
// logged: the next poll tries again, and the stale timeout still ends a
// job that never runs.
func (s *Service) restartUnstarted(ctx context.Context, r *jobRecord) {
	started, err := workflow.Restart(ctx, s.st, s.wf, s.clock.Now(), workflow.Stalled{
		Table: store.Jobs, Key: jobKey(r.ID),
		While: store.And(store.Equals(attrStatus, StatusQueued), store.AttrNotExists(attrProgress)),
		Since: r.updatedAt, Machine: Machine, Name: execName(r.ID, r.generation), Input: TaskInput{JobID: r.ID, Generation: r.generation},
	})
	if err != nil {
		s.log.Error("restarting an unstarted recognition job", "job", r.ID, "err", err)
	} else if started {
		s.log.Warn("recognition job was not started; started its pipeline again", "job", r.ID, "created", r.CreatedAt)
	}
}

// failStale fails r unless its pipeline wrote in the meantime.
func (s *Service) failStale(ctx context.Context, r *jobRecord) error {
	s.log.Warn("failing a stale recognition job", "job", r.ID, "status", r.Status, "updated", r.updatedAt)
	err := s.endRefunded(ctx, r.ID,
		map[string]any{attrStatus: StatusFailed, attrErrorCode: CodeTimeout, attrDetail: detailTimeout},
		store.And(store.Equals(attrStatus, r.Status), store.Equals(attrUpdated, store.UnixNano(r.updatedAt))))
	if errors.Is(err, errInactive) {
		return nil
	}
	return err
}

// Fail ends an active job as failed with an error code (see the package
// doc) and a client-facing detail. A job already completed or failed is
// left as it is. The quota unit comes back, in the same write, unless the
// input was at fault (InputError): the work was done, and a free retry of
// a file that cannot be read would let anyone decode without limit.
func (s *Service) Fail(ctx context.Context, jobID, errorCode, detail string) error {
	return s.fail(ctx, jobID, 0, errorCode, detail)
}

// fail is Fail for the job's generation gen (0: any).
func (s *Service) fail(ctx context.Context, jobID string, gen int64, errorCode, detail string) error {
	set := map[string]any{attrStatus: StatusFailed, attrErrorCode: errorCode, attrDetail: detail}
	var err error
	if InputError(errorCode) {
		_, err = s.finalize(ctx, jobID, gen, set)
	} else {
		err = s.endRefunded(ctx, jobID, set, activeAt(gen))
	}
	if errors.Is(err, errInactive) {
		return nil
	}
	if err == nil {
		s.log.Info("recognition job failed", "job", jobID, "error_code", errorCode)
	}
	return err
}

// Recover resumes the jobs a crashed process left queued or processing:
// their workflows start again (every task is idempotent and reuses the
// work already stored), or, after MaxRecoveries restarts, the job fails
// with CodeInterrupted. The devserver calls it at start; on AWS, Step
// Functions is durable and Recover is not needed.
func (s *Service) Recover(ctx context.Context) error {
	var cursor string
	for {
		page, err := s.st.Query(ctx, store.Jobs, store.Query{Index: "GSI1", PK: activePartition, Limit: 100, Cursor: cursor})
		if err != nil {
			return fmt.Errorf("recognition: recover: %w", err)
		}
		for _, it := range page.Items {
			if err := s.recoverJob(ctx, strings.TrimPrefix(it.PK, "RECOGNITION#")); err != nil {
				return err
			}
		}
		if cursor = page.Cursor; cursor == "" {
			return nil
		}
	}
}

func (s *Service) recoverJob(ctx context.Context, id string) error {
	// Stamping updated_at gives the resumed pipeline the full StaleAfter.
	it, err := s.st.Update(ctx, store.Jobs, jobKey(id), store.Update{
		Add: map[string]int64{attrRecoveries: 1},
		Set: map[string]any{attrUpdated: store.UnixNano(s.clock.Now())},
	}, store.And(store.Exists(), active()))
	if errors.Is(err, store.ErrConditionFailed) {
		return nil // ended meanwhile
	}
	if err != nil {
		return fmt.Errorf("recognition: recover %s: %w", id, err)
	}
	if it.Int(attrRecoveries) > MaxRecoveries {
		s.log.Warn("recognition job interrupted too often; failing it", "job", id)
		return s.Fail(ctx, id, CodeInterrupted, detailInterrupted)
	}
	s.log.Info("resuming recognition job", "job", id, "status", it.Str(attrStatus), "progress", it.Str(attrProgress))
	if err := s.start(ctx, id, it.Int(attrGeneration)); err != nil {
		return fmt.Errorf("recognition: recover %s: %w", id, err)
	}
	return nil
}
