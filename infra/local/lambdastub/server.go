package lambdastub

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"
)

// Handler serves the Lambda Invoke API and the Step Functions API on one
// address: Step Functions requests are the POSTs to / with an
// X-Amz-Target header (AWS JSON 1.0), the rest is Lambda's REST API.
func (s *Stack) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /2015-03-31/functions/{name}/invocations", s.serveInvoke)
	mux.HandleFunc("POST /{$}", s.serveSFN)
	return mux
}

func awsError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("X-Amzn-ErrorType", typ)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"__type": typ, "Type": "User", "message": msg, "Message": msg})
}

func (s *Stack) serveInvoke(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	payload, err := io.ReadAll(io.LimitReader(r.Body, maxSyncPayload+1))
	if err != nil {
		awsError(w, http.StatusBadRequest, "InvalidRequestContentException", err.Error())
		return
	}
	if len(payload) == 0 {
		payload = []byte("{}")
	}
	if !json.Valid(payload) {
		awsError(w, http.StatusBadRequest, "InvalidRequestContentException", "Could not parse request body into json")
		return
	}
	if s.Runtime.Function(name) == nil {
		awsError(w, http.StatusNotFound, "ResourceNotFoundException", "Function not found: "+name)
		return
	}
	switch r.Header.Get("X-Amz-Invocation-Type") {
	case "DryRun":
		w.WriteHeader(http.StatusNoContent)
		return
	case "Event":
		if len(payload) > maxAsyncPayload {
			awsError(w, http.StatusRequestEntityTooLarge, "RequestTooLargeException", "Request must be smaller than 1048576 bytes for the InvokeAsync operation")
			return
		}
		s.invokeAsync(name, payload)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	res, err := s.Runtime.Invoke(r.Context(), name, payload)
	switch {
	case errors.Is(err, ErrRequestTooLarge):
		awsError(w, http.StatusRequestEntityTooLarge, "RequestTooLargeException", err.Error())
		return
	case errors.Is(err, ErrTooManyRequests):
		awsError(w, http.StatusTooManyRequests, "TooManyRequestsException", err.Error())
		return
	case errors.Is(err, ErrNoFunction):
		awsError(w, http.StatusNotFound, "ResourceNotFoundException", err.Error())
		return
	case err != nil:
		awsError(w, http.StatusInternalServerError, "ServiceException", err.Error())
		return
	}
	w.Header().Set("X-Amz-Executed-Version", "$LATEST")
	if res.FunctionError != "" {
		w.Header().Set("X-Amz-Function-Error", res.FunctionError)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(res.Payload)
}

func epoch(t time.Time) float64 { return float64(t.UnixMilli()) / 1000 }

func (s *Stack) serveSFN(w http.ResponseWriter, r *http.Request) {
	target := r.Header.Get("X-Amz-Target")
	op, ok := strings.CutPrefix(target, "AWSStepFunctions.")
	if !ok {
		awsError(w, http.StatusBadRequest, "UnknownOperationException", "unknown operation "+target)
		return
	}
	var in struct {
		StateMachineArn, Name, Input, ExecutionArn string
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&in); err != nil {
		awsError(w, http.StatusBadRequest, "SerializationException", err.Error())
		return
	}
	reply := func(v any) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		json.NewEncoder(w).Encode(v)
	}
	switch op {
	case "StartExecution":
		if in.Name == "" {
			in.Name = newRequestID()
		}
		ex, err := s.SFN.Start(in.StateMachineArn, in.Name, in.Input)
		if err != nil {
			typ, _, _ := strings.Cut(err.Error(), ":")
			awsError(w, http.StatusBadRequest, typ, err.Error())
			return
		}
		reply(map[string]any{"executionArn": ex.ARN, "startDate": epoch(ex.Start)})
	case "DescribeExecution":
		ex, err := s.SFN.Describe(in.ExecutionArn)
		if err != nil {
			awsError(w, http.StatusBadRequest, "ExecutionDoesNotExist", err.Error())
			return
		}
		out := map[string]any{"executionArn": ex.ARN, "stateMachineArn": ex.MachineARN, "name": ex.Name,
			"status": ex.Status, "startDate": epoch(ex.Start), "input": ex.Input}
		if ex.Status != StatusRunning {
			out["stopDate"] = epoch(ex.Stop)
		}
		if ex.Status == StatusSucceeded {
			out["output"] = ex.Output
		}
		if ex.Status == StatusFailed {
			out["error"], out["cause"] = ex.Error, ex.Cause
		}
		reply(out)
	default:
		awsError(w, http.StatusBadRequest, "UnknownOperationException", "the stand-in does not serve "+op)
	}
}
