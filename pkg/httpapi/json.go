package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"musiccatalog/pkg/errs"
)

// WriteJSON writes v as the JSON response body with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		http.Error(w, `{"detail":"`+internalDetail+`"}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// DecodeJSON reads a JSON object body into v. Unknown fields are ignored,
// as the reference API does; anything that is not one JSON object is a 400.
// No body at all (or only white space) is an object without fields, so
// that the endpoint's own checks name what is required (as a form without
// fields would) instead of a parse error that names nothing.
func DecodeJSON(r *http.Request, v any) error {
	const op = "httpapi.DecodeJSON"
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !isJSONSuffix(mt)) {
			return &errs.Error{Op: op, Kind: errs.Invalid, Status: http.StatusUnsupportedMediaType,
				Detail: "Unsupported media type \"" + echoed(ct) + "\" in request; send application/json."}
		}
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return errs.E(op, errs.Invalid, "Could not read the request body.")
	}
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		body = []byte("{}")
	}
	if body[0] != '{' {
		return errs.E(op, errs.Invalid, "JSON parse error - expected a JSON object.")
	}
	if !utf8.Valid(body) {
		// JSON is UTF-8 (RFC 8259 §8.1); the decoder would silently turn
		// each bad byte into U+FFFD and store text the client never sent.
		return errs.E(op, errs.Invalid, msgNotUTF8)
	}
	if loneSurrogateValue(body) {
		// An escaped half of a UTF-16 pair ("\ud800") alone is no
		// character: the decoder would store U+FFFD in its place.
		return errs.E(op, errs.Invalid, msgNotUTF8)
	}
	if err := json.Unmarshal(body, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return &errs.Error{Op: op, Kind: errs.Invalid, Fields: typeErrors(body, v, te)}
		}
		return errs.E(op, errs.Invalid, "JSON parse error - "+err.Error())
	}
	return nil
}

// typeErrors names every field of the object body whose value has the
// wrong JSON type for v, not only the first (first, which encoding/json
// reports): each member that names a field of v's struct is decoded alone
// into a fresh value of v's type. Members that name no field are not
// looked at, at most maxTypeChecks are, and a body over maxTypeCheckBody
// gets the first error only.
func typeErrors(body []byte, v any, first *json.UnmarshalTypeError) map[string][]string {
	msg := func(te *json.UnmarshalTypeError) []string {
		return []string{"Invalid type: expected " + jsonTypeName(te.Type) + "."}
	}
	out := map[string][]string{first.Field: msg(first)}
	t := reflect.TypeOf(v)
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return out
	}
	if len(body) > maxTypeCheckBody {
		return out
	}
	names := jsonFieldNames(t.Elem())
	var members map[string]json.RawMessage
	if json.Unmarshal(body, &members) != nil {
		return out
	}
	checked := 0
	for k, raw := range members {
		if !slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, k) }) {
			continue
		}
		if checked++; checked > maxTypeChecks {
			break
		}
		key, _ := json.Marshal(k)
		one := append(append(append(append([]byte{'{'}, key...), ':'), raw...), '}')
		var te *json.UnmarshalTypeError
		if err := json.Unmarshal(one, reflect.New(t.Elem()).Interface()); errors.As(err, &te) && te.Field != "" {
			out[te.Field] = msg(te)
		}
	}
	return out
}

// maxTypeChecks bounds the members typeErrors decodes (more than any
// request struct here has fields), and maxTypeCheckBody the body it reads
// again (far more than any request here needs): a 1-MB body of 140,000
// members took 200 ms to split into them, against 30 ms to decode.
const (
	maxTypeChecks    = 64
	maxTypeCheckBody = 64 << 10
)

// jsonFieldNames are the JSON names of t's exported fields (embedded
// structs' included), as encoding/json names them.
func jsonFieldNames(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-":
			continue
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			out = append(out, jsonFieldNames(f.Type)...)
			continue
		case name == "":
			name = f.Name
		}
		out = append(out, name)
	}
	return out
}

// loneSurrogateValue reports whether a string value of the JSON text body
// has an escaped surrogate (\uD800-\uDFFF) that is not half of a pair.
// Object keys are not checked (a garbled key names no field), nor is
// malformed JSON (json.Unmarshal reports it).
func loneSurrogateValue(body []byte) bool {
	if !bytes.Contains(body, []byte(`\u`)) {
		return false
	}
	for i := 0; i < len(body); i++ {
		if body[i] != '"' {
			continue
		}
		lone := false
		j := i + 1
		for j < len(body) && body[j] != '"' {
			if body[j] != '\\' {
				j++
				continue
			}
			r, ok := escapedRune(body[j:])
			switch {
			case !ok:
				j += 2 // another escape (or a malformed one)
			case utf16.IsSurrogate(r) && r < 0xDC00: // high: a low must follow
				if lo, ok := escapedRune(body[j+6:]); ok && lo >= 0xDC00 && lo <= 0xDFFF {
					j += 12
				} else {
					lone, j = true, j+6
				}
			case utf16.IsSurrogate(r): // low without a high before it
				lone, j = true, j+6
			default:
				j += 6
			}
		}
		k := j + 1
		for k < len(body) && (body[k] == ' ' || body[k] == '\t' || body[k] == '\n' || body[k] == '\r') {
			k++
		}
		if lone && (k >= len(body) || body[k] != ':') {
			return true
		}
		i = j
	}
	return false
}

// escapedRune decodes the \uXXXX escape b starts with.
func escapedRune(b []byte) (rune, bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[2:6]), 16, 16)
	return rune(n), err == nil
}

// msgNotUTF8 refuses a JSON body with bytes that are not UTF-8.
const msgNotUTF8 = "JSON parse error - the body is not valid UTF-8."

// maxEchoed bounds what of a client's header an error message repeats:
// enough to recognize it, not a way to make the answer as large as the request.
const maxEchoed = 100

// echoed is s as an error message may quote it: valid UTF-8, at most
// maxEchoed bytes (cut at a character boundary, marked with "…").
func echoed(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= maxEchoed {
		return s
	}
	cut := maxEchoed
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func isJSONSuffix(mt string) bool { return len(mt) > 5 && mt[len(mt)-5:] == "+json" }

// jsonTypeName names what a Go field accepts in JSON terms, for clients
// that never see our Go types.
func jsonTypeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	default:
		return "an object"
	}
}
