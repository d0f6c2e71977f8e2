package manifest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/catalog"
)

// MaxLineBytes bounds one manifest line (lyrics make lines long, not this long).
const MaxLineBytes = 4 << 20

// Problem is something wrong with one line of a manifest.
type Problem struct {
	Line    int
	Field   string // JSON path of the field, "" for the whole record
	Message string
}

func (p Problem) Error() string {
	if p.Field == "" {
		return fmt.Sprintf("line %d: %s", p.Line, p.Message)
	}
	return fmt.Sprintf("line %d: %s: %s", p.Line, p.Field, p.Message)
}

// Source is where an asset's audio is: a local file or a blob key.
type Source struct {
	Path string
	Key  string
}

func (s Source) String() string {
	if s.Key != "" {
		return BlobPrefix + s.Key
	}
	return s.Path
}

// Asset is one valid record: catalog metadata (length, audio renditions
// and analysis not yet filled in) and where its audio is.
type Asset struct {
	Line    int
	Track   *catalog.Track   // nil for a sound effect
	SoundFX *catalog.SoundFX // nil for a track
	Audio   Source
	Stems   []Source // audio of Track.Stems[i]
}

// ID is the asset's id.
func (a Asset) ID() string {
	if a.Track != nil {
		return a.Track.ID
	}
	return a.SoundFX.ID
}

// Manifest is the outcome of parsing: the valid assets in line order, the
// records that were skipped (Errors) and what was accepted but questionable
// (Warnings, e.g. unknown fields).
type Manifest struct {
	Assets   []Asset
	Errors   []Problem
	Warnings []Problem
}

// Base says what relative audio references are relative to.
type Base struct {
	dir    string
	inBlob bool
}

// LocalBase resolves relative audio paths against dir.
func LocalBase(dir string) Base { return Base{dir: dir} }

// BlobBase resolves relative audio references against the "directory" of
// the manifest's blob key, for a manifest read from the blob store; local
// paths are not available there.
func BlobBase(manifestKey string) Base {
	dir := path.Dir(manifestKey)
	if dir == "." {
		dir = ""
	}
	return Base{dir: dir, inBlob: true}
}

func (b Base) resolve(ref string) (Source, error) {
	if key, ok := strings.CutPrefix(ref, BlobPrefix); ok {
		if err := blob.ValidateKey(key); err != nil {
			return Source{}, errors.New("not a valid blob key")
		}
		return blobSource(key)
	}
	if strings.Contains(ref, "://") {
		return Source{}, fmt.Errorf("%q: give a path relative to the manifest or %sKEY", ref, BlobPrefix)
	}
	if b.inBlob {
		if strings.HasPrefix(ref, "/") {
			return Source{}, errors.New("a manifest in the blob store cannot name local files; use a relative key or " + BlobPrefix + "KEY")
		}
		key := path.Join(b.dir, ref)
		if err := blob.ValidateKey(key); err != nil || strings.HasPrefix(key, "../") {
			return Source{}, fmt.Errorf("%q does not resolve to a valid blob key", ref)
		}
		return blobSource(key)
	}
	if filepath.IsAbs(ref) {
		return Source{Path: filepath.Clean(ref)}, nil
	}
	return Source{Path: filepath.Join(b.dir, ref)}, nil
}

// blobSource admits a blob key only under CatalogBlobPrefixes.
func blobSource(key string) (Source, error) {
	if !catalogBlobKey(key) {
		return Source{}, fmt.Errorf("blob key %q is outside the catalog's prefixes (%s)", key, strings.Join(CatalogBlobPrefixes, ", "))
	}
	return Source{Key: key}, nil
}

// ParseFile parses the manifest at path; relative audio paths are relative
// to its directory.
func ParseFile(name string) (*Manifest, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f, LocalBase(filepath.Dir(name)))
}

// Parse reads a manifest. Only a read failure is an error; bad records are
// reported in the Manifest and skipped.
func Parse(r io.Reader, base Base) (*Manifest, error) {
	p := &parser{base: base, m: &Manifest{}, seen: map[string]int{}, shortIDs: map[string]int{}}
	br := bufio.NewReaderSize(r, 64<<10)
	for line := 1; ; line++ {
		b, tooLong, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("manifest: line %d: %w", line, err)
		}
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
		}
		if tooLong {
			p.fail(Problem{Line: line, Message: fmt.Sprintf("longer than %d bytes", MaxLineBytes)})
		} else if len(bytes.TrimSpace(b)) > 0 {
			p.record(line, b)
		}
		if errors.Is(err, io.EOF) {
			return p.m, nil
		}
	}
}

// readLine returns the next line without its terminator; a line longer
// than MaxLineBytes is consumed and reported as too long.
func readLine(br *bufio.Reader) ([]byte, bool, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) <= MaxLineBytes {
			line = append(line, chunk...)
		} else {
			line = line[:0:0]
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			return nil, true, err
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), false, err
	}
}

type parser struct {
	base     Base
	m        *Manifest
	seen     map[string]int // id → line that took it
	shortIDs map[string]int
}

func (p *parser) fail(pr Problem) { p.m.Errors = append(p.m.Errors, pr) }
func (p *parser) warn(pr Problem) { p.m.Warnings = append(p.m.Warnings, pr) }
func (p *parser) record(line int, b []byte) {
	var head struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		p.fail(Problem{Line: line, Message: jsonError(err)})
		return
	}
	var (
		a   *Asset
		c   = &checker{line: line}
		typ reflect.Type
	)
	switch head.Kind {
	case KindTrack:
		var t Track
		if err := json.Unmarshal(b, &t); err != nil {
			p.fail(Problem{Line: line, Message: jsonError(err)})
			return
		}
		typ = reflect.TypeFor[Track]()
		a = p.track(c, &t)
	case KindSoundFX:
		var s SoundFX
		if err := json.Unmarshal(b, &s); err != nil {
			p.fail(Problem{Line: line, Message: jsonError(err)})
			return
		}
		typ = reflect.TypeFor[SoundFX]()
		a = p.soundFX(c, &s)
	case "stem":
		p.fail(Problem{Line: line, Field: "kind", Message: `stems are listed in the "stems" of their track`})
		return
	case "":
		p.fail(Problem{Line: line, Field: "kind", Message: `missing; want "track" or "soundfx"`})
		return
	default:
		p.fail(Problem{Line: line, Field: "kind", Message: fmt.Sprintf(`%q: want "track" or "soundfx"`, head.Kind)})
		return
	}
	if len(c.errs) > 0 {
		p.m.Errors = append(p.m.Errors, c.errs...)
		return
	}
	p.m.Warnings = append(p.m.Warnings, c.warns...)
	for _, f := range unknownFields(b, typ) {
		p.warn(Problem{Line: line, Field: f, Message: "unknown field, ignored"})
	}
	for _, id := range assetIDs(a) {
		p.seen[id] = line
	}
	if a.Track != nil {
		p.shortIDs[a.Track.ShortID] = line
	}
	p.m.Assets = append(p.m.Assets, *a)
}

func assetIDs(a *Asset) []string {
	if a.SoundFX != nil {
		return []string{a.SoundFX.ID}
	}
	ids := []string{a.Track.ID}
	for _, s := range a.Track.Stems {
		ids = append(ids, s.ID)
	}
	return ids
}

// jsonError turns a decoding error into a message naming the field.
func jsonError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field == "" {
		return "expected a JSON object, got a JSON " + te.Value
	}
	if errors.As(err, &te) {
		return fmt.Sprintf("%s: expected %s, got a JSON %s", te.Field, kindName(te.Type), te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("invalid JSON at byte %d: %s", se.Offset, se.Error())
	}
	return "invalid record: " + strings.TrimPrefix(err.Error(), "json: ")
}

func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Float32, reflect.Float64, reflect.Int, reflect.Int64:
		return "a number"
	case reflect.Slice:
		return "an array"
	}
	return "an object"
}

// unknownFields lists the fields of the JSON object b that typ (a struct
// with json tags) does not have, at any depth, as JSON paths.
func unknownFields(b []byte, typ reflect.Type) []string {
	var out []string
	walkUnknown(b, typ, "", &out)
	return out
}

func walkUnknown(b []byte, typ reflect.Type, at string, out *[]string) {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	switch typ.Kind() {
	case reflect.Struct:
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil {
			return
		}
		fields := jsonFields(typ)
		for _, k := range sortedKeys(m) {
			// encoding/json matches names case-insensitively; so do we.
			ft, ok := fields[strings.ToLower(k)]
			switch {
			case ok:
				walkUnknown(m[k], ft, at+k+".", out)
			case at == "" && slices.Contains(derivedFields, k):
			default:
				*out = append(*out, at+k)
			}
		}
	case reflect.Slice:
		var a []json.RawMessage
		if json.Unmarshal(b, &a) != nil {
			return
		}
		for i, v := range a {
			walkUnknown(v, typ.Elem(), fmt.Sprintf("%s[%d].", strings.TrimSuffix(at, "."), i), out)
		}
	case reflect.Map:
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil {
			return
		}
		for _, k := range sortedKeys(m) {
			walkUnknown(m[k], typ.Elem(), at+k+".", out)
		}
	}
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[strings.ToLower(name)] = f.Type
	}
	return out
}
