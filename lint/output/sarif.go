package output

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/agentlint/agentlint/lint/envelope"
	"github.com/agentlint/agentlint/lint/fingerprint"
)

// SARIFInformationURI is tool.driver.informationUri of the SARIF log.
const SARIFInformationURI = "https://github.com/agentlint/agentlint"

// SARIFSchemaURI is the $schema of the SARIF log: OASIS SARIF 2.1.0
// (errata 01), the official JSON Schema.
const SARIFSchemaURI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// SARIFFingerprint is the key of agentlint's partialFingerprints entry.
const SARIFFingerprint = "agentlintRecordHash/v1"

// SARIF prints one SARIF 2.1.0 log (OASIS SARIF v2.1.0; README, Usage, `--format
// sarif`) with one run: tool.driver lists every rule of Run.Rules (help: the
// `agentlint explain` text), and each violation is one result with ruleId,
// ruleIndex, level (error or warning), message (reason and JSON Pointer), a
// location relative to %SRCROOT% (Run.Root; 1-based line and column), properties
// (code, pointer, kind) and a partial fingerprint that does not depend on the line
// number: see fingerprint. Envelopes that deny without a violation (an unreadable
// file) and usage errors (Abort) become tool execution notifications, and
// executionSuccessful is false. The log is written by Close; memory is
// proportional to the findings.
type SARIF struct {
	W   io.Writer
	Run *RunInfo

	results  []*sarif.Result
	keys     []fpKey // per result: what its fingerprint hashes
	notes    []*sarif.Notification
	failed   bool
	summary  map[string]any
	jsonl    map[string]bool        // paths of JSON Lines files (FileObserver)
	stats    map[string]fs.FileInfo // each file as it was read (FileObserver)
	ruleIdx  map[string]int
	ruleList []RuleInfo
	ruleSeen bool
	baseline bool // results carry a baselineState (MarkBaseline)
}

// fpKey is what a result's fingerprint is made of.
type fpKey struct {
	rule, uri, pointer, path string
	line                     int // a record's line in a JSON Lines file, else 0
}

// Record implements Printer. With MarkBaseline, its results are
// baselineState "new".
func (p *SARIF) Record(e envelope.Envelope) error {
	state := ""
	if p.baseline {
		state = "new"
	}
	return p.record(e, state)
}

// MarkBaseline implements BaselineMarker: every result gets a
// baselineState.
func (p *SARIF) MarkBaseline() { p.baseline = true }

// Unchanged implements BaselineMarker: the findings of e were found before
// the change (--new-from-rev) or are in the baseline (--baseline); they
// become results of baselineState "unchanged", which code scanning shows
// apart from the new ones.
func (p *SARIF) Unchanged(e envelope.Envelope) error { return p.record(e, "unchanged") }

func (p *SARIF) record(e envelope.Envelope, state string) error {
	file, _ := e.Details["file"].(string)
	vs, _ := e.Details["violations"].([]envelope.Violation)
	if len(vs) == 0 {
		if !e.Allow {
			p.failed = true
			p.notes = append(p.notes, p.notification(e, file))
		}
		return nil
	}
	for i := range vs {
		v := &vs[i]
		f := file
		if vf, ok := v.Extra["file"].(string); ok && vf != "" {
			f = vf // replay: each violation names the input it points into
		}
		r := p.result(e, v, f)
		if state != "" {
			r.WithBaselineState(state)
		}
		p.results = append(p.results, r)
	}
	return nil
}

// Summary implements Printer: the summary's details become the
// invocation's properties.
func (p *SARIF) Summary(e envelope.Envelope) error {
	p.summary = map[string]any{"code": e.Code, "allow": e.Allow, "reason": e.Reason}
	for k, v := range e.Details {
		p.summary[k] = v
	}
	return nil
}

// File implements FileObserver: it learns which files are JSON Lines, whose
// findings are fingerprinted with their record's bytes.
func (p *SARIF) File(f FileInfo) {
	if f.Document || f.Path == "-" {
		return
	}
	if p.jsonl == nil {
		p.jsonl = map[string]bool{}
	}
	p.jsonl[f.Path] = true
	if f.Stat != nil {
		if p.stats == nil {
			p.stats = map[string]fs.FileInfo{}
		}
		p.stats[f.Path] = f.Stat
	}
}

// Abort implements Aborter: the run could not do its job (exit 2).
func (p *SARIF) Abort(e envelope.Envelope) {
	p.failed = true
	p.notes = append(p.notes, p.notification(e, ""))
}

func (p *SARIF) notification(e envelope.Envelope, file string) *sarif.Notification {
	text := string(e.Code) + ": " + e.Reason
	n := &sarif.Notification{Level: "error", Message: &sarif.Message{Text: &text}}
	if loc := p.location(file, 0, 0); loc != nil {
		n.Locations = []*sarif.Location{loc}
	}
	n.Properties = sarif.Properties{"code": string(e.Code)}
	return n
}

func (p *SARIF) rules() map[string]int {
	if !p.ruleSeen {
		p.ruleSeen = true
		if p.Run.Rules != nil {
			p.ruleList = p.Run.Rules()
		}
		p.ruleIdx = make(map[string]int, len(p.ruleList))
		for i, r := range p.ruleList {
			p.ruleIdx[r.ID] = i
		}
	}
	return p.ruleIdx
}

func (p *SARIF) result(e envelope.Envelope, v *envelope.Violation, file string) *sarif.Result {
	msg := v.Reason
	if v.Pointer != "" {
		msg += " [" + v.Pointer + "]"
	}
	level := "error"
	if v.Severity == envelope.SeverityWarning {
		level = "warning"
	}
	r := &sarif.Result{Level: &level, Message: sarif.Message{Text: &msg}}
	if v.Rule != "" {
		id := v.Rule
		r.RuleID = &id
		if i, ok := p.rules()[v.Rule]; ok {
			u := uint(i)
			r.RuleIndex = &u
		}
	}
	if loc := p.location(file, v.Line, v.Column); loc != nil {
		r.Locations = []*sarif.Location{loc}
	}
	props := sarif.Properties{"code": string(v.Code), "pointer": v.Pointer}
	if kind, ok := e.Details["kind"].(string); ok && kind != "" {
		props["kind"] = kind
	}
	for _, k := range []string{"stream", "delta_index", "delta_id"} {
		if x, ok := v.Extra[k]; ok {
			props[k] = x
		}
	}
	r.Properties = props
	p.keys = append(p.keys, fpKey{rule: v.Rule, uri: p.uri(file), pointer: v.Pointer, path: file, line: v.Line})
	return r
}

// uri returns file as a URI reference: relative to Run.Root (%SRCROOT%)
// when it lies inside it, else an absolute file URI; "" for standard
// input.
func (p *SARIF) uri(file string) string {
	u, _ := p.artifact(file)
	return u
}

func (p *SARIF) artifact(file string) (uri string, rooted bool) {
	if file == "" || file == "-" {
		return "", false
	}
	abs := file
	if !filepath.IsAbs(abs) && p.Run.Root != "" {
		abs = filepath.Join(p.Run.Root, file)
	}
	if p.Run.Root != "" {
		if rel, err := filepath.Rel(p.Run.Root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return (&url.URL{Path: filepath.ToSlash(rel)}).EscapedPath(), true
		}
	}
	if !filepath.IsAbs(abs) {
		return (&url.URL{Path: filepath.ToSlash(filepath.Clean(abs))}).EscapedPath(), false
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String(), false
}

func (p *SARIF) location(file string, line, col int) *sarif.Location {
	uri, rooted := p.artifact(file)
	if uri == "" {
		return nil
	}
	al := &sarif.ArtifactLocation{URI: &uri}
	if rooted {
		base := "%SRCROOT%"
		al.URIBaseId = &base
	}
	pl := &sarif.PhysicalLocation{ArtifactLocation: al}
	if line > 0 {
		l := line
		pl.Region = &sarif.Region{StartLine: &l}
		if col > 0 {
			c := col
			pl.Region.StartColumn = &c
		}
	}
	return &sarif.Location{PhysicalLocation: pl}
}

// Close implements Closer: it writes the SARIF log.
func (p *SARIF) Close() error {
	p.fingerprint()
	p.rules()
	driver := &sarif.ToolComponent{Name: "agentlint", Rules: make([]*sarif.ReportingDescriptor, 0, len(p.ruleList))}
	info := SARIFInformationURI
	driver.InformationURI = &info
	if v := sarifVersion(p.Run.Version); v != "" {
		driver.Version = &v
	}
	for _, r := range p.ruleList {
		name, short, full, help := r.Name, r.Summary, r.Summary+" (code "+r.Code+")", r.Help
		rd := &sarif.ReportingDescriptor{
			ID:                   r.ID,
			Name:                 &name,
			ShortDescription:     &sarif.MultiformatMessageString{Text: &short},
			FullDescription:      &sarif.MultiformatMessageString{Text: &full},
			DefaultConfiguration: &sarif.ReportingConfiguration{Level: sarifLevel(r.Severity)},
			Help:                 &sarif.MultiformatMessageString{Text: &help},
			Properties:           sarif.Properties{"code": r.Code, "tags": []string{r.Code}},
		}
		driver.Rules = append(driver.Rules, rd)
	}
	run := sarif.NewRun(sarif.Tool{Driver: driver})
	if p.results != nil {
		run.Results = p.results
	}
	if p.Run.Root != "" {
		root := (&url.URL{Scheme: "file", Path: filepath.ToSlash(p.Run.Root) + "/"}).String()
		if !strings.HasSuffix(root, "/") {
			root += "/"
		}
		run.OriginalUriBaseIDs = map[string]*sarif.ArtifactLocation{"%SRCROOT%": {URI: &root}}
	}
	ok := !p.failed
	inv := &sarif.Invocation{ExecutionSuccessful: &ok, ToolExecutionNotifications: p.notes}
	if p.summary != nil {
		inv.Properties = sarif.Properties{"summary": p.summary}
	}
	if p.Run.Command != "" {
		inv.Properties = mergeProps(inv.Properties, sarif.Properties{"command": p.Run.Command})
	}
	run.Invocations = []*sarif.Invocation{inv}
	rep := &sarif.Report{Version: "2.1.0", Schema: SARIFSchemaURI, Runs: []*sarif.Run{run}}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		return err
	}
	_, err := p.W.Write(escapeJSONControls(buf.Bytes())) // DEL and C1 controls too
	return err
}

// sarifVersion makes a version start with an integer, as SARIF consumers
// compare them (Multitool rule SARIF2005): "v1.2.3" is "1.2.3", "devel" is
// "0.0.0-devel".
func sarifVersion(v string) string {
	v = strings.TrimPrefix(v, "v")
	if v != "" && (v[0] < '0' || v[0] > '9') {
		v = "0.0.0-" + v
	}
	return v
}

func mergeProps(a, b sarif.Properties) sarif.Properties {
	if a == nil {
		a = sarif.Properties{}
	}
	for k, v := range b {
		a[k] = v
	}
	return a
}

func sarifLevel(severity string) string {
	switch severity {
	case "warning":
		return "warning"
	case "off":
		return "none"
	}
	return "error"
}

// fingerprint sets each result's partialFingerprints[SARIFFingerprint]:
// the SHA-256 (hex, 32 digits) of rule, URI, JSON Pointer and, for a
// record of a JSON Lines file, the SHA-256 of the record's bytes (its line
// without the line ending), then ":" and the occurrence of that hash among
// the run's results (1-based). Adding lines above a finding does not change
// it; editing the record does. The line number is never hashed, and
// nothing is in clear, so no secret is echoed. The record bytes are read
// back from the file (only the lines with findings are hashed); a file that
// cannot be read back (standard input) contributes no record hash.
func (p *SARIF) fingerprint() {
	lines := map[string][]int{}
	for _, k := range p.keys {
		if k.line > 0 && p.jsonl[k.path] {
			lines[k.path] = append(lines[k.path], k.line)
		}
	}
	hashes := map[string]map[int]string{}
	for _, path := range sortedKeys(nil, lines) {
		h, changed := hashLines(path, lines[path], p.stats[path])
		if changed {
			// Hashes of another content would be fingerprints of nothing
			// that was linted: none, and the run did not do its job.
			p.failed = true
			p.notes = append(p.notes, p.notification(envelope.Envelope{Code: envelope.MissingRequiredInput,
				Reason: path + ": the file changed during the run; its results carry no record hash: lint it again once nothing writes to it"}, path))
		}
		hashes[path] = h
	}
	seen := map[string]int{}
	for i, k := range p.keys {
		h := sha256.New()
		for _, s := range []string{k.rule, k.uri, k.pointer, hashes[k.path][k.line]} {
			h.Write([]byte(s))
			h.Write([]byte{0})
		}
		sum := fmt.Sprintf("%x", h.Sum(nil)[:16])
		seen[sum]++
		p.results[i].PartialFingerprints = map[string]interface{}{SARIFFingerprint: sum + ":" + strconv.Itoa(seen[sum])}
	}
}

// hashLines returns the hex SHA-256 of the given 1-based lines of a file
// (without "\n" or "\r\n"), reading it once, forward (fingerprint.Lines).
// was, when non-nil, is the file as it was linted: a file replaced, written
// to or deleted since then is not read (changed true), so that no
// fingerprint hashes other content than the findings were about.
func hashLines(path string, want []int, was fs.FileInfo) (hashes map[int]string, changed bool) {
	sort.Ints(want)
	out := make(map[int]string, len(want))
	if was != nil {
		now, err := os.Stat(path)
		if err != nil || !os.SameFile(was, now) || now.Size() != was.Size() || !now.ModTime().Equal(was.ModTime()) {
			return out, true
		}
	}
	var l fingerprint.Lines
	defer l.Close()
	for _, n := range want {
		if _, done := out[n]; done {
			continue
		}
		if h := l.Hash(path, n); h != "" {
			out[n] = h
		}
	}
	return out, false
}
