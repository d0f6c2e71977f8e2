package app

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"musiccatalog/pkg/store"
)

// localOnlyEnv are the variables the code reads that the template leaves
// unset on purpose, and why.
var localOnlyEnv = map[string]string{
	"ADDR":                   "devserver listen address",
	"DATA_DIR":               "local store and blobs",
	"BLOB_SIGNING_SECRET":    "local signed URLs; S3 presigns on AWS",
	"ACRCLOUD_ACCESS_KEY":    "local; on AWS from the SSM parameter ACRCLOUD_CREDENTIALS_PARAMETER",
	"ACRCLOUD_ACCESS_SECRET": "local; on AWS from the SSM parameter ACRCLOUD_CREDENTIALS_PARAMETER",
	"PUBLIC_BASE_URL":        "base of local signed URLs; set only with a custom domain",
	// core/gc.go: Lambda sets the first; the others are the operator's
	// override of the collector setting it derives from it.
	"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "set by the Lambda runtime",
	"GOGC":                            "operator override of the collector (core/gc.go)",
	"GOMEMLIMIT":                      "operator override of the collector (core/gc.go)",
}

var envRead = regexp.MustCompile(`(?:env|envInt|envDuration|os\.Getenv|os\.LookupEnv)\("([A-Z][A-Z0-9_]*)"`)

// TestTemplateSetsEveryVariable: every variable pkg/app reads is set by
// the template (Globals or a function) unless it is local-only.
func TestTemplateSetsEveryVariable(t *testing.T) {
	tpl := loadTemplate(t)
	set := map[string]bool{}
	for k := range mapping(tpl.root, "Globals", "Function", "Environment", "Variables") {
		set[k] = true
	}
	for id := range tpl.resources {
		for k := range mapping(tpl.props(id), "Environment", "Variables") {
			set[k] = true
		}
	}
	files, _ := filepath.Glob("*.go")
	groups, _ := filepath.Glob("*/*.go") // core and the per-group wiring
	files = append(files, groups...)
	read := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range envRead.FindAllStringSubmatch(string(src), -1) {
			if m[1] == "TABLE_" {
				for _, tb := range store.AllTables {
					read["TABLE_"+strings.ToUpper(string(tb))] = true
				}
				continue
			}
			read[m[1]] = true
		}
	}
	if !read["BUCKET"] || !read["SITE_URL"] {
		t.Fatalf("the scan found %v; it no longer sees the configuration", read)
	}
	for _, name := range slices.Sorted(maps.Keys(read)) {
		if !set[name] && localOnlyEnv[name] == "" {
			t.Errorf("the code reads %s, which template.yaml never sets", name)
		}
	}
	// A link fetch ends inside its function's timeout.
	for id := range tpl.resources {
		env := mapping(tpl.props(id), "Environment", "Variables")
		v := env["YTDLP_TIMEOUT"]
		if v == nil {
			continue
		}
		d, err := time.ParseDuration(v.Value)
		timeout := 29
		if n := get(tpl.props(id), "Timeout"); n != nil {
			timeout, _ = strconv.Atoi(n.Value)
		}
		if err != nil || d >= time.Duration(timeout)*time.Second {
			t.Errorf("%s: YTDLP_TIMEOUT %s is not below its %d s timeout", id, v.Value, timeout)
		}
	}
}

// decoderFunctions run ffmpeg (recognition and soundtrack decoding,
// catalog analysis and transcoding, by-url/by-video analysis).
var decoderFunctions = []string{"api-search", "api-soundtrack", "catalog-ingest", "recognition-extract", "recognition-prepare", "build-render"}

// TestTemplateDecodersHaveFFmpeg: every decoding function carries the
// stack's ffmpeg layer (or the FFmpegLayerArn override) and finds ffmpeg
// where the layer puts it.
func TestTemplateDecodersHaveFFmpeg(t *testing.T) {
	tpl := loadTemplate(t)
	if v := mapping(tpl.root, "Globals", "Function", "Environment", "Variables")["FFMPEG_PATH"]; v == nil || v.Value != "/opt/bin/ffmpeg" {
		t.Errorf("FFMPEG_PATH is not /opt/bin/ffmpeg")
	}
	if tpl.typeOf("FFmpegLayer") != "AWS::Serverless::LayerVersion" || get(get(tpl.resources["FFmpegLayer"], "Metadata"), "BuildMethod").Value != "makefile" {
		t.Fatal("no FFmpegLayer built with the Makefile")
	}
	makefile, _ := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	if !strings.Contains(string(makefile), "\nbuild-FFmpegLayer:") {
		t.Error("the Makefile has no build-FFmpegLayer target")
	}
	ids := functionIDs(t)
	for _, fn := range decoderFunctions {
		found := false
		for _, l := range seq(get(tpl.props(ids[fn]), "Layers")) {
			if l.Tag == "!If" && len(l.Content) == 3 && l.Content[0].Value == "BuildFFmpegLayer" &&
				l.Content[1].Tag == "!Ref" && l.Content[1].Value == "FFmpegLayer" && l.Content[2].Value == "FFmpegLayerArn" {
				found = true
			}
		}
		if !found {
			t.Errorf("%s (%s) decodes but lacks !If [BuildFFmpegLayer, !Ref FFmpegLayer, !Ref FFmpegLayerArn]", fn, ids[fn])
		}
	}
}

// TestTemplateOperations: every function has a log group with the
// retention parameter and alarms on its errors and throttles; every alarm
// notifies the topic parameter; customer tables survive a stack delete.
func TestTemplateOperations(t *testing.T) {
	tpl := loadTemplate(t)
	logGroups, alarms := map[string]bool{}, map[string]bool{}
	for id, r := range tpl.resources {
		p := get(r, "Properties")
		switch tpl.typeOf(id) {
		case "AWS::Logs::LogGroup":
			if v := get(p, "RetentionInDays"); v == nil || v.Tag != "!Ref" || v.Value != "LogRetentionDays" {
				t.Errorf("%s: retention is not !Ref LogRetentionDays", id)
			}
			if n := get(p, "LogGroupName"); n != nil {
				logGroups[n.Value] = true
			}
		case "AWS::CloudWatch::Alarm":
			if a := get(p, "AlarmActions"); a == nil || a.Tag != "!If" || a.Content[0].Value != "HasAlarmTopic" {
				t.Errorf("%s does not notify AlarmTopicArn", id)
			}
			for _, d := range seq(get(p, "Dimensions")) {
				if get(d, "Name").Value == "FunctionName" {
					alarms[get(p, "MetricName").Value+" "+get(d, "Value").Value] = true
				}
			}
		}
	}
	for _, id := range functionIDs(t) {
		if !logGroups["/aws/lambda/${"+id+"}"] {
			t.Errorf("%s has no log group with retention", id)
		}
		for _, m := range []string{"Errors", "Throttles"} {
			if !alarms[m+" "+id] {
				t.Errorf("%s has no %s alarm", id, m)
			}
		}
	}
	for _, tb := range []string{"AccountsTable", "LicensesTable", "PlaylistsTable"} {
		r := tpl.resources[tb]
		if r == nil || get(r, "DeletionPolicy") == nil || get(r, "DeletionPolicy").Value != "Retain" || get(r, "UpdateReplacePolicy").Value != "Retain" {
			t.Errorf("%s is not retained on delete and replacement", tb)
		}
	}
	sm := tpl.props("RecognitionStateMachine")
	if get(sm, "Logging") == nil {
		t.Error("the state machine does not log")
	}
}
