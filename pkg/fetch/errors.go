package fetch

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"

	"musiccatalog/pkg/errs"
)

// Error codes of fetch failures (the error_code of the response body).
const (
	CodePrivateAddress   = "private_address"   // 400: the link leads to a non-public address
	CodeVideoUnavailable = "video_unavailable" // 422: removed, private, geo-blocked, not found
	CodeNotMedia         = "not_media"         // 422: the link is no video or audio
	CodeTooLarge         = "media_too_large"   // 422: over the size limit
	CodeUnreachable      = "link_unreachable"  // 502: the platform did not answer
)

func blocked(op string, err error) error {
	return &errs.Error{Op: op, Kind: errs.Invalid, Code: CodePrivateAddress, Err: err,
		Detail: "The link leads to a private or local network address, which this service does not fetch."}
}

func unavailableMedia(op, detail string, err error) error {
	return &errs.Error{Op: op, Kind: errs.Unprocessable, Code: CodeVideoUnavailable, Detail: detail, Err: err}
}

func notMedia(op string, err error) error {
	return &errs.Error{Op: op, Kind: errs.Unprocessable, Code: CodeNotMedia, Err: err,
		Detail: "The link does not lead to a video or audio file this service can fetch."}
}

func tooLarge(op string, limit int64) error {
	return &errs.Error{Op: op, Kind: errs.Unprocessable, Code: CodeTooLarge,
		Detail: "The linked media is larger than " + humanMB(limit) + "."}
}

func unreachable(op string, err error) error {
	return &errs.Error{Op: op, Kind: errs.Unavailable, Status: http.StatusBadGateway, Code: CodeUnreachable, Err: err,
		Detail: "The link could not be fetched: the platform did not answer. Try again later."}
}

// classify maps a transport error: a refused address, a cancelled
// request (passed through: the caller went away or ran out of time), or
// an unreachable platform.
func classify(op string, err error) error {
	var be *BlockedError
	if errors.As(err, &be) {
		return blocked(op, err)
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		return unavailableMedia(op, "The link's host does not exist.", err)
	}
	return unreachable(op, err)
}

func humanMB(n int64) string { return strconv.FormatInt(n/1_000_000, 10) + " MB" }
