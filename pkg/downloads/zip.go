package downloads

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/workflow"
)

// The ZIP flow of interface.md §3.2: both formats, or a track with its
// stems, are built once per cache key into one archive by the "zip" state
// machine and served from the blob store by signed URL until it expires.
const (
	// Machine is the ZIP build state machine (infra/statemachines/zip.asl.json).
	Machine = "zip"
	// FnBuildZIP is its task function: the build, and with failed=true the
	// Catch path that records why a build failed.
	FnBuildZIP = "build-zip"
	// ZIPPrefix is where archives are stored; template.yaml's lifecycle
	// rule expires objects under it after ZIPRetention.
	ZIPPrefix = "builds/zip/"
	// ZIPRetention is how long a built archive is reused by identical
	// requests; S3 deletes it after as many days (lifecycle rule), and the
	// build record expires at the same time, locally too.
	ZIPRetention = 7 * 24 * time.Hour
	// ZIPBuildDeadline is how long a build may stay "building" before a
	// request treats it as failed (the state machine's own timeout is
	// shorter; this covers an execution that died without its Catch, so a
	// build is never 202 forever). TestZIPDeadlineCoversMachineTimeout
	// checks the two agree.
	ZIPBuildDeadline = 40 * time.Minute
	// zipContentType is the archive's stored type.
	zipContentType = "application/zip"
)

// Substitutions are the ZIP machine's DefinitionSubstitutions when its
// task runs in process; template.yaml substitutes the function's ARN.
var Substitutions = map[string]string{"BuildZipFunctionArn": FnBuildZIP}

// Texts of the ZIP answers (the 202 text is gaps.md's).
const (
	MsgPreparing     = "Download is being prepared. Please try again in a few moments."
	msgNoWorkflow    = "ZIP downloads (both formats or stems) are not configured in this environment; request one format without stems."
	msgBuildFailed   = "The download could not be prepared: %s Repeat the request to build it again."
	msgStartFailed   = "The download could not be started. Repeat the request to try again."
	reasonTimeout    = "The build took too long and was stopped."
	reasonStorage    = "The archive could not be stored."
	reasonInternal   = "The build could not be completed."
	reasonNoAsset    = "The asset is no longer in the catalog."
	reasonNoSource   = "A source file of this download is missing (%s)."
	reasonNoRendered = "The asset has no %s rendition."
)

// Build record states.
const (
	statusBuilding = "building"
	statusBuilt    = "built"
	statusFailed   = "failed"
)

// Attributes of a build record (Jobs table, PK "ZIP#<id>", SK "BUILD").
const (
	attrStatus     = "status"
	attrGeneration = "generation"
	attrFormats    = "formats"
	attrStems      = "include_stems"
	attrObjectKey  = "zip_key"
	attrFilename   = "filename"
	attrReason     = "reason"
	attrError      = "error"
	attrStarted    = "started_at"
	attrBuilt      = "built_at"
	attrSize       = "size"
	attrExecution  = "execution"
	// attrReported marks a failure already answered with 500: the next
	// identical request starts a fresh build.
	attrReported = "failure_reported"
	// buildRecordTTL is how long an unfinished or failed record is kept.
	buildRecordTTL = 24 * time.Hour
	// maxZIPRounds bounds the re-reads when concurrent requests move the
	// same record (each round follows a write that someone else won).
	maxZIPRounds = 8
)

func buildKey(id string) store.Key { return store.Key{PK: "ZIP#" + id, SK: "BUILD"} }

// buildID is the cache key of §3.2: the asset, the normalized body
// (formats, include_stems; confirm_personal_use is recorded per download
// and does not change the archive) and the digests of the sources, so a
// re-ingested asset gets a new archive.
func buildID(as catalog.Asset, req Request) string {
	var b strings.Builder
	fmt.Fprintf(&b, "zip/v1\x00%s\x00%s\x00%s\x00%t\x00%s", as.Kind, as.ID, strings.Join(req.Formats, ","), req.IncludeStems, as.Audio.SHA256)
	if req.IncludeStems && as.Track != nil {
		for _, st := range as.Track.Stems {
			fmt.Fprintf(&b, "\x00%s:%s", st.ID, st.Audio.SHA256)
		}
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:16])
}

// zipFilename is what the archive saves as.
func zipFilename(as catalog.Asset, req Request) string {
	name := Filename(as, "zip")
	if req.IncludeStems {
		name = strings.TrimSuffix(name, ".zip") + " (stems).zip"
	}
	return name
}

// record is a decoded build record.
type record struct {
	status     string
	generation int64
	reported   bool
	reason     string
	objectKey  string
	filename   string
	execution  string
	started    time.Time
	built      time.Time
}

func decodeRecord(it store.Item) record {
	return record{status: it.Str(attrStatus), generation: it.Int(attrGeneration), reported: it.Bool(attrReported),
		reason: it.Str(attrReason), objectKey: it.Str(attrObjectKey), filename: it.Str(attrFilename), execution: it.Str(attrExecution),
		started: time.Unix(it.Int(attrStarted), 0), built: time.Unix(it.Int(attrBuilt), 0)}
}

// current holds when the record is still in state status at generation g:
// the condition of every transition, so of two racing requests one wins.
func current(status string, g int64) store.Condition {
	return store.And(store.Equals(attrStatus, status), store.Equals(attrGeneration, g))
}

// BuildInput is the state machine's input, and the task's.
type BuildInput struct {
	BuildID    string `json:"build_id"`
	Generation int64  `json:"generation"`
}

// zipAudio is the ZIP flow for an asset the caller may download: 202
// while the archive builds (the first request starts the build), 200 with
// the archive's URL once built, 500 once for a failed build and then a
// fresh build. Every transition is a conditional write of the build
// record, so concurrent identical requests start exactly one build.
func (s *Service) zipAudio(ctx context.Context, p *identity.Principal, as catalog.Asset, req Request) (Link, error) {
	const op = "downloads.zip"
	if s.wf == nil {
		return Link{}, errs.E(op, errs.NotImplemented, msgNoWorkflow)
	}
	id := buildID(as, req)
	key := buildKey(id)
	for range maxZIPRounds {
		it, err := s.st.Get(ctx, store.Jobs, key)
		if errors.Is(err, store.ErrNotFound) {
			link, err := s.startBuild(ctx, id, as, req, 1, store.NotExists())
			if errors.Is(err, store.ErrConditionFailed) {
				continue
			}
			return link, err
		}
		if err != nil {
			return Link{}, errs.Wrap(op, err)
		}
		rec := decodeRecord(it)
		switch rec.status {
		case statusBuilding:
			if s.clock.Now().Before(rec.started.Add(ZIPBuildDeadline)) {
				s.restartUnstarted(ctx, id, rec)
				return pending(), nil
			}
			// The execution died without recording it: fail the build.
			_, err := s.st.Update(ctx, store.Jobs, key, store.Update{Set: map[string]any{
				attrStatus: statusFailed, attrReason: reasonTimeout}}, current(statusBuilding, rec.generation))
			if err != nil && !errors.Is(err, store.ErrConditionFailed) {
				return Link{}, errs.Wrap(op, err)
			}
		case statusBuilt:
			// Served until ZIPRetention, as long as the record lives
			// (whatever the store's own expiry sweep has done yet).
			if s.clock.Now().Before(rec.built.Add(ZIPRetention)) {
				link, err := s.serveBuilt(ctx, p, as, req, rec)
				if !errors.Is(err, blob.ErrNotFound) {
					return link, err
				}
			}
			// Expired, or the archive is gone before its record: build it again.
			link, err := s.startBuild(ctx, id, as, req, rec.generation+1, current(statusBuilt, rec.generation))
			if errors.Is(err, store.ErrConditionFailed) {
				continue
			}
			return link, err
		case statusFailed:
			if !rec.reported {
				_, err := s.st.Update(ctx, store.Jobs, key, store.Update{Set: map[string]any{attrReported: true}},
					store.And(current(statusFailed, rec.generation), store.AttrNotExists(attrReported)))
				if errors.Is(err, store.ErrConditionFailed) {
					continue
				}
				if err != nil {
					return Link{}, errs.Wrap(op, err)
				}
				return Link{}, &errs.Error{Op: op, Kind: errs.Unavailable, Status: 500, Detail: fmt.Sprintf(msgBuildFailed, rec.reason)}
			}
			link, err := s.startBuild(ctx, id, as, req, rec.generation+1,
				store.And(current(statusFailed, rec.generation), store.AttrExists(attrReported)))
			if errors.Is(err, store.ErrConditionFailed) {
				continue
			}
			return link, err
		default:
			return Link{}, errs.Wrap(op, fmt.Errorf("build %s: unknown status %q", id, rec.status))
		}
	}
	// Every round lost a race to another request moving the same build:
	// it is being worked on.
	return pending(), nil
}

func pending() Link { return Link{Pending: true, Detail: MsgPreparing} }

// startBuild writes the record of generation g as building when cond
// holds and starts its execution. A start that fails marks the record
// failed and already answered, so this request's 500 is the one answer
// and the next request builds afresh.
func (s *Service) startBuild(ctx context.Context, id string, as catalog.Asset, req Request, g int64, cond store.Condition) (Link, error) {
	const op = "downloads.startBuild"
	now := s.clock.Now()
	exec := "zip-" + id + "-" + strconv.FormatInt(g, 10) + "-" + strconv.FormatInt(now.UnixNano(), 36)
	it := store.Item{Key: buildKey(id), ExpiresAt: now.Add(buildRecordTTL), Attrs: map[string]any{
		attrStatus: statusBuilding, attrGeneration: g, attrType: as.Kind, attrAsset: as.ID, attrName: as.Name,
		attrFormats: strings.Join(req.Formats, ","), attrStems: req.IncludeStems,
		attrObjectKey: ZIPPrefix + id + ".zip", attrFilename: zipFilename(as, req),
		attrStarted: now.Unix(), attrExecution: exec,
	}}
	if err := s.st.Put(ctx, store.Jobs, it, cond); err != nil {
		return Link{}, err // ErrConditionFailed: another request won; the caller re-reads
	}
	err := s.wf.Start(ctx, Machine, exec, BuildInput{BuildID: id, Generation: g})
	if err == nil {
		return pending(), nil
	}
	_, uerr := s.st.Update(ctx, store.Jobs, buildKey(id), store.Update{Set: map[string]any{
		attrStatus: statusFailed, attrReason: msgStartFailed, attrError: err.Error(), attrReported: true}},
		current(statusBuilding, g))
	if uerr != nil && !errors.Is(uerr, store.ErrConditionFailed) {
		s.log.ErrorContext(ctx, "zip: recording a failed start", "build_id", id, "error", uerr)
	}
	return Link{}, &errs.Error{Op: op, Kind: errs.Unavailable, Status: 500, Detail: msgStartFailed, Err: err}
}

// restartUnstarted starts the execution of a build still building past
// workflow.StartGrace again: a crash between startBuild's write and its
// Start left it without one (an archive of several renditions builds in
// seconds, well within the grace period). The name and input are the
// first start's, so a running or finished execution is not run again; a
// failure is logged, and ZIPBuildDeadline still ends a build that never
// runs.
func (s *Service) restartUnstarted(ctx context.Context, id string, rec record) {
	if rec.execution == "" {
		return
	}
	started, err := workflow.Restart(ctx, s.st, s.wf, s.clock.Now(), workflow.Stalled{
		Table: store.Jobs, Key: buildKey(id), While: current(statusBuilding, rec.generation), Since: rec.started,
		Machine: Machine, Name: rec.execution, Input: BuildInput{BuildID: id, Generation: rec.generation},
	})
	if err != nil {
		s.log.ErrorContext(ctx, "zip: restarting a build", "build_id", id, "error", err)
	} else if started {
		s.log.WarnContext(ctx, "zip: build was not running; started its execution again", "build_id", id, "execution", rec.execution)
	}
}

// serveBuilt counts the download and signs the archive's URL; a missing
// archive is blob.ErrNotFound.
func (s *Service) serveBuilt(ctx context.Context, p *identity.Principal, as catalog.Asset, req Request, rec record) (Link, error) {
	const op = "downloads.serveBuilt"
	attrs, err := s.blob.Head(ctx, rec.objectKey)
	if errors.Is(err, blob.ErrNotFound) {
		return Link{}, err
	}
	if err != nil {
		return Link{}, errs.Wrap(op, err)
	}
	u, err := s.blob.PresignGet(ctx, rec.objectKey, URLTTL, rec.filename)
	if err != nil {
		return Link{}, errs.Wrap(op, err)
	}
	link := Link{URL: u, Filename: rec.filename, ContentType: attrs.ContentType, Format: "zip"}
	if req.Probe {
		return link, nil
	}
	if err := s.count(ctx, p.Client.ID, as, req); err != nil {
		return Link{}, errs.Wrap(op, err)
	}
	s.logDownload(ctx, p, as, req)
	return link, nil
}
