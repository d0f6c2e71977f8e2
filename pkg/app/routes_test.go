package app

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	yaml "github.com/oasdiff/yaml3"

	"musiccatalog/pkg/httpapi"
	"musiccatalog/pkg/lambdarun"
)

// templateRoutes lists the HTTP API route keys of each function
// ("ANY /api/v4/stream/{id}"), as template.yaml declares them; the default
// route (an event with neither Path nor Method) is "$default".
func templateRoutes(t *testing.T, tpl *cfnTemplate) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for id := range tpl.resources {
		for _, ev := range mapping(tpl.props(id), "Events") {
			if get(ev, "Type").Value != "HttpApi" {
				continue
			}
			p := get(ev, "Properties")
			if get(p, "Path") == nil && get(p, "Method") == nil {
				out[id] = append(out[id], defaultRoute)
				continue
			}
			out[id] = append(out[id], get(p, "Method").Value+" "+get(p, "Path").Value)
		}
	}
	return out
}

// defaultRoute is the route key of API Gateway's catch-all route.
const defaultRoute = "$default"

// documentedMethods are the methods infra/openapi.yaml gives the route
// path (which serves path and path + "/"), upper case.
func documentedMethods(paths map[string]*yaml.Node, path string) []string {
	var out []string
	for _, p := range []string{path, path + "/"} {
		for m := range mapping(paths[p]) {
			switch m = strings.ToUpper(m); m {
			case "GET", "POST", "PUT", "PATCH", "DELETE":
				out = append(out, m)
			}
		}
	}
	slices.Sort(out)
	return out
}

// routeEvent is the event API Gateway sends the function of route key
// for method and raw path.
func routeEvent(key, method, raw, partnerKey string) events.APIGatewayV2HTTPRequest {
	return events.APIGatewayV2HTTPRequest{
		Version: "2.0", RouteKey: key, RawPath: raw,
		Headers: map[string]string{"authorization": "Bearer " + partnerKey, "content-type": "application/json"},
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			Stage: "$default", RouteKey: key, DomainName: "abc123.execute-api.eu-west-1.amazonaws.com",
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: method, Path: raw, Protocol: "HTTP/1.1", SourceIP: "203.0.113.7"},
		},
		Body: "{}",
	}
}

// devserverAnswer is what the devserver answers method raw with the same
// headers and body as routeEvent.
func devserverAnswer(local http.Handler, method, raw, partnerKey string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, raw, strings.NewReader("{}"))
	req.Header.Set("Authorization", "Bearer "+partnerKey)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	local.ServeHTTP(rec, req)
	return rec
}

// groupOf is the endpoint group each HTTP function serves (its main's
// RunHTTPLambda argument).
var groupOf = map[string]httpapi.Group{
	"api-allowlist": httpapi.GroupAllowlist, "api-tracks": httpapi.GroupTracks, "api-search": httpapi.GroupSearch,
	"api-recognition": httpapi.GroupRecognition, "api-soundtrack": httpapi.GroupSoundtrack,
	"api-licenses": httpapi.GroupLicenses, "api-playlists": httpapi.GroupPlaylists,
}

// contractPaths are the paths of infra/openapi.yaml.
func contractPaths(t *testing.T) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for p := range openAPIPaths(t) {
		out[p] = true
	}
	return out
}

// openAPIPaths is the paths mapping of infra/openapi.yaml (path -> its
// operations by lower-case method).
func openAPIPaths(t *testing.T) map[string]*yaml.Node {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "infra", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return mapping(doc.Content[0], "paths")
}

var pathParam = regexp.MustCompile(`\{[^}]+\}`)

// TestRouteKeysReachTheRouter feeds every route of template.yaml to its
// function's handler as API Gateway delivers it. HTTP API route keys carry
// no trailing slash, and API Gateway sends both /x and /x/ to the route /x
// with rawPath as the client wrote it. The function then answers as the
// devserver does: the spec's /x/ reaches the endpoint, /x gets the
// devserver's own 404 (which names /x/ where the mux can tell). A contract path without the
// slash (the public license page) reaches its endpoint as written.
func TestRouteKeysReachTheRouter(t *testing.T) {
	tpl := loadTemplate(t)
	routes := templateRoutes(t, tpl)
	ids := functionIDs(t)
	contract := contractPaths(t)
	paths := openAPIPaths(t)
	d, creds := newTestDeps(t)
	local := d.LocalHandler()
	for fn, group := range groupOf {
		handler := lambdarun.NewHTTPHandler(d.API().Handler(group))
		keys := routes[ids[fn]]
		if len(keys) == 0 {
			t.Errorf("%s has no routes in template.yaml", fn)
		}
		for _, key := range keys {
			if key == defaultRoute {
				continue // TestUnroutedRequestsAnswerLikeTheDevserver
			}
			_, path, _ := strings.Cut(key, " ")
			concrete := pathParam.ReplaceAllString(path, "x1")
			forms := []string{concrete + "/", concrete}
			if !contract[path+"/"] {
				forms = []string{concrete} // the contract's path has no slash
			}
			for _, method := range documentedMethods(paths, path) {
				for _, raw := range forms {
					resp, err := handler(eventContext(), routeEvent(key, method, raw, creds.Partner.Key))
					if err != nil {
						t.Fatalf("%s %s: %v", method, raw, err)
					}
					var body struct{ Detail string }
					json.Unmarshal([]byte(resp.Body), &body)
					switch {
					case strings.HasSuffix(raw, "/") || len(forms) == 1:
						if resp.StatusCode == 405 || body.Detail == "Not found." || strings.HasPrefix(body.Detail, "Not found. Did you mean") {
							t.Errorf("%s %s (route %s) did not reach its endpoint: %d %s", method, raw, key, resp.StatusCode, resp.Body)
						}
					default:
						// Exactly what the devserver answers for the same request.
						rec := devserverAnswer(local, method, raw, creds.Partner.Key)
						if resp.StatusCode != 404 || resp.StatusCode != rec.Code || strings.TrimSpace(resp.Body) != strings.TrimSpace(rec.Body.String()) {
							t.Errorf("%s %s: Lambda %d %s; devserver %d %s", method, raw, resp.StatusCode, resp.Body, rec.Code, rec.Body.String())
						}
					}
				}
			}
		}
	}
}

// TestWrongMethodsAnswerLikeTheDevserver: every route is ANY, so a method
// its path lacks reaches the path's function, which must answer what the
// devserver answers (405, the Allow header, the error shape of the API at
// that path) rather than API Gateway's 404 {"message":"Not Found"}.
func TestWrongMethodsAnswerLikeTheDevserver(t *testing.T) {
	tpl := loadTemplate(t)
	routes := templateRoutes(t, tpl)
	ids := functionIDs(t)
	paths := openAPIPaths(t)
	contract := contractPaths(t)
	d, creds := newTestDeps(t)
	local := d.LocalHandler()
	checked := 0
	for fn, group := range groupOf {
		handler := lambdarun.NewHTTPHandler(d.API().Handler(group))
		for _, key := range routes[ids[fn]] {
			method, path, _ := strings.Cut(key, " ")
			if key == defaultRoute {
				continue
			}
			if method != "ANY" {
				t.Errorf("%s: route %s is not ANY: API Gateway would answer its path's other methods 404 {message}", fn, key)
				continue
			}
			raw := pathParam.ReplaceAllString(path, "x1")
			if contract[path+"/"] {
				raw += "/"
			}
			documented := documentedMethods(paths, path)
			for _, wrong := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
				if slices.Contains(documented, wrong) {
					continue
				}
				resp, err := handler(eventContext(), routeEvent(key, wrong, raw, creds.Partner.Key))
				if err != nil {
					t.Fatalf("%s %s: %v", wrong, raw, err)
				}
				rec := devserverAnswer(local, wrong, raw, creds.Partner.Key)
				if resp.StatusCode != http.StatusMethodNotAllowed || resp.StatusCode != rec.Code ||
					strings.TrimSpace(resp.Body) != strings.TrimSpace(rec.Body.String()) ||
					resp.Headers["Allow"] != rec.Header().Get("Allow") || resp.Headers["Allow"] == "" {
					t.Errorf("%s %s: Lambda %d %v %s; devserver %d Allow %q %s", wrong, raw, resp.StatusCode, resp.Headers, resp.Body, rec.Code, rec.Header().Get("Allow"), rec.Body.String())
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("no wrong method checked")
	}
}

// TestUnroutedRequestsAnswerLikeTheDevserver: exactly one function holds
// the $default route, and a path no route names gets from it what the
// devserver answers (404 in the error shape of the API at that path).
func TestUnroutedRequestsAnswerLikeTheDevserver(t *testing.T) {
	tpl := loadTemplate(t)
	routes := templateRoutes(t, tpl)
	ids := functionIDs(t)
	var holder string
	for fn := range groupOf {
		if slices.Contains(routes[ids[fn]], defaultRoute) {
			if holder != "" {
				t.Fatalf("both %s and %s hold the $default route", holder, fn)
			}
			holder = fn
		}
	}
	if holder == "" {
		t.Fatal("no function holds the $default route: API Gateway answers unknown paths 404 {message}")
	}
	d, creds := newTestDeps(t)
	local := d.LocalHandler()
	handler := lambdarun.NewHTTPHandler(d.API().Handler(groupOf[holder]))
	for _, raw := range []string{"/", "/api/v4/", "/api/v4/nothing/here/", "/api/v1/nothing", "/api/v4/search/ai/by-sound/", "/favicon.ico"} {
		for _, method := range []string{"GET", "POST", "DELETE"} {
			resp, err := handler(eventContext(), routeEvent(defaultRoute, method, raw, creds.Partner.Key))
			if err != nil {
				t.Fatalf("%s %s: %v", method, raw, err)
			}
			rec := devserverAnswer(local, method, raw, creds.Partner.Key)
			if resp.StatusCode != http.StatusNotFound || resp.StatusCode != rec.Code || strings.TrimSpace(resp.Body) != strings.TrimSpace(rec.Body.String()) {
				t.Errorf("%s %s: Lambda %d %s; devserver %d %s", method, raw, resp.StatusCode, resp.Body, rec.Code, rec.Body.String())
			}
		}
	}
}

// TestSampleEventRouteKeys: the sample events carry route keys that exist
// in template.yaml for their function, as API Gateway would send them.
func TestSampleEventRouteKeys(t *testing.T) {
	tpl := loadTemplate(t)
	routes := templateRoutes(t, tpl)
	ids := functionIDs(t)
	for fn := range groupOf {
		files, _ := filepath.Glob(filepath.Join("..", "..", "events", fn, "*.json"))
		for _, f := range files {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var ev events.APIGatewayV2HTTPRequest
			if err := json.Unmarshal(raw, &ev); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			found := false
			for _, k := range routes[ids[fn]] {
				found = found || k == ev.RouteKey
			}
			if !found || ev.RequestContext.RouteKey != ev.RouteKey {
				t.Errorf("%s: routeKey %q is not a route of %s in template.yaml", f, ev.RouteKey, ids[fn])
			}
		}
	}
}

// TestPreflightsAreAnsweredOnEveryRoute: with ANY routes and the $default
// route, API Gateway forwards a CORS preflight to the function; the
// function answers it 204 (API Gateway adds the CorsConfiguration's
// headers), where a 405 or 404 would fail every browser call that sends
// Authorization.
func TestPreflightsAreAnsweredOnEveryRoute(t *testing.T) {
	tpl := loadTemplate(t)
	routes := templateRoutes(t, tpl)
	ids := functionIDs(t)
	d, _ := newTestDeps(t)
	checked := 0
	for fn, group := range groupOf {
		handler := lambdarun.NewHTTPHandler(d.API().Handler(group))
		for _, key := range routes[ids[fn]] {
			raw := "/api/v4/nothing/here/"
			if key != defaultRoute {
				_, path, _ := strings.Cut(key, " ")
				raw = pathParam.ReplaceAllString(path, "x1") + "/"
			}
			ev := routeEvent(key, http.MethodOptions, raw, "")
			ev.Headers = map[string]string{"origin": "https://editor.example", "access-control-request-method": "POST",
				"access-control-request-headers": "authorization,content-type,idempotency-key"}
			resp, err := handler(eventContext(), ev)
			if err != nil {
				t.Fatalf("OPTIONS %s: %v", raw, err)
			}
			if resp.StatusCode != http.StatusNoContent || resp.Body != "" {
				t.Errorf("preflight of %s (route %s, %s): %d %s; want 204", raw, key, fn, resp.StatusCode, resp.Body)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no route checked")
	}
}
