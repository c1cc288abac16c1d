package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/replay"
	"github.com/agentlint/agentlint/lint/schemaexport"
	"github.com/agentlint/agentlint/rules"
)

// rules is GET /v1/rules: every rule, as `agentlint rules --format json`
// prints them, in one JSON array.
func (s *Server) rules(w http.ResponseWriter, _ *http.Request) {
	all := rules.All()
	out := make([]map[string]any, 0, len(all))
	for _, r := range all {
		m := map[string]any{
			"id": r.ID, "name": r.Name, "code": r.Code, "severity": r.Severity,
			"kinds": r.Kinds, "summary": r.Summary, "source": r.Source,
		}
		if r.Scope != "" {
			m["scope"] = r.Scope
		}
		out = append(out, m)
	}
	writeJSON(w, http.StatusOK, out)
}

// schema is GET /v1/schemas/{kind}[?strict=true]: the kind's JSON Schema,
// as `agentlint schema export --kind K` writes it.
func (s *Server) schema(w http.ResponseWriter, r *http.Request) {
	kind := r.PathValue("kind")
	strict := false
	if v := r.URL.Query().Get("strict"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			fail(w, http.StatusBadRequest, envelope.MissingRequiredInput, "strict must be true or false")
			return
		}
		strict = b
	}
	b, err := schemaexport.JSONSchema(kind, strict)
	if err != nil {
		fail(w, http.StatusNotFound, envelope.MissingValidator, "no JSON Schema for kind "+strconv.Quote(kind)+"; GET /v1/kinds lists them")
		return
	}
	w.Header().Set("Content-Type", "application/schema+json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(b)
}

// replayRequest is the body of POST /v1/replay: the base ledger and the
// streams of `agentlint replay --ledger BASE STREAM...`, each a JSON value
// (a handoff bundle, an array of ledger rows, an orchestrator output) or a
// JSON string holding JSON Lines.
type replayRequest struct {
	Ledger  json.RawMessage   `json:"ledger"`
	Streams []json.RawMessage `json:"streams"`
}

// replay is POST /v1/replay[?now=T]: the replay's envelope, as `agentlint
// replay --format json` prints it (no ledger is written; the watchdog runs
// at now, by default the current time, as the CLI's).
func (s *Server) replay(w http.ResponseWriter, r *http.Request) {
	opts, ok := s.options(w, r.URL.Query())
	if !ok {
		return
	}
	data, ok := s.body(w, r)
	if !ok {
		return
	}
	var req replayRequest
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil || len(req.Ledger) == 0 || len(req.Streams) == 0 {
		fail(w, http.StatusBadRequest, envelope.MissingRequiredInput, `the body must be {"ledger": BASE, "streams": [STREAM, ...]} (each a JSON value, or a JSON string holding JSON Lines)`)
		return
	}
	in := func(name string, raw json.RawMessage) replay.Input {
		var text string
		if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &text) == nil {
			return replay.Input{Name: name, R: bytes.NewReader([]byte(text))}
		}
		return replay.Input{Name: name, R: bytes.NewReader(raw)}
	}
	streams := make([]replay.Input, len(req.Streams))
	for i, st := range req.Streams {
		streams[i] = in("streams/"+strconv.Itoa(i), st)
	}
	res, err := replay.Run(in("ledger", req.Ledger), streams, replay.Options{Options: opts})
	var ie *replay.InputError
	if errors.As(err, &ie) {
		fail(w, http.StatusBadRequest, envelope.MissingRequiredInput, ie.Error())
		return
	}
	if err != nil {
		fail(w, http.StatusInternalServerError, envelope.MissingRequiredInput, "replay failed: "+err.Error())
		return
	}
	s.verdict(res.Envelope)
	writeEnvelopes(w, res.Envelope)
}

// writeJSON answers status with v as indented-free JSON and a newline.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		fail(w, http.StatusInternalServerError, envelope.MissingRequiredInput, "cannot encode the answer")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}
