package lint

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/agentlint/agentlint/lint/kind"
)

// Arg is one argument of a lint run, resolved before the run starts: a
// directory to walk, or one input with its kind.
type Arg struct {
	// Dir is a directory to walk; "" for an input.
	Dir string
	// Input is the input when Dir is "": its Kind is nil only for a file
	// of no known kind kept by ResolveConfig.SkipUnknown (the run skips
	// and counts it).
	Input Input
}

// InputError is an argument that names nothing lint can read: a missing or
// unreadable file, a dangling symbolic link, standard input given twice or
// unreadable, or a file whose kind cannot be determined. Path is the
// argument ("-": standard input); Reason says what is wrong, naming it.
type InputError struct {
	Path   string
	Reason string
}

func (e *InputError) Error() string { return e.Reason }

// ResolveConfig configures Resolve.
type ResolveConfig struct {
	// Detector gives each file its kind (cue/README.md "Detection").
	Detector *kind.Detector
	// Config is the loaded configuration (nil: none), for ForceExclude.
	Config *Config
	// ForceExclude drops the arguments the configuration's exclude globs
	// match, even when named explicitly (--force-exclude); Excluded, when
	// set, is told of each.
	ForceExclude bool
	Excluded     func(path string)
	// SkipUnknown keeps a file of no known kind as an input without a kind
	// (--skip-unknown) instead of failing.
	SkipUnknown bool
	// Stdin is standard input, read for "-".
	Stdin io.Reader
}

// Resolve checks every argument of a lint run before it starts, in order, so
// that a missing, unreadable or undetectable file named explicitly fails the
// run (an *InputError) before any output. Directories are walked later
// (Walker); a file's kind comes from its name, else from sniffing its first
// DefaultChunkSize bytes; standard input ("-", at most once) is peeked
// through a buffered reader that the returned Input reads from.
func Resolve(args []string, rc ResolveConfig) ([]Arg, error) {
	det := rc.Detector
	if det == nil {
		det = &kind.Detector{}
	}
	var out []Arg
	stdin := false
	for _, arg := range args {
		if arg == "-" {
			if stdin {
				return nil, &InputError{Path: "-", Reason: "- (standard input) given twice"}
			}
			stdin = true
			br := bufio.NewReaderSize(rc.Stdin, DefaultChunkSize)
			head, err := br.Peek(DefaultChunkSize)
			if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
				return nil, &InputError{Path: "-", Reason: fmt.Sprintf("cannot read standard input: %v", err)}
			}
			k := det.Detect("-", head)
			if k == nil {
				return nil, Undetectable("-")
			}
			out = append(out, Arg{Input: Input{Path: "-", Reader: br, Kind: k}})
			continue
		}
		if rc.ForceExclude && rc.Config.Excluded(arg) {
			if rc.Excluded != nil {
				rc.Excluded(arg)
			}
			continue
		}
		st, err := os.Stat(arg)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				if target, lerr := os.Readlink(arg); lerr == nil {
					return nil, &InputError{Path: arg, Reason: fmt.Sprintf("%s: dangling symbolic link (-> %s)", arg, target)}
				}
				return nil, &InputError{Path: arg, Reason: arg + ": no such file or directory"}
			}
			return nil, &InputError{Path: arg, Reason: fmt.Sprintf("%s: %v", arg, unwrapPath(err))}
		}
		if st.IsDir() {
			out = append(out, Arg{Dir: arg})
			continue
		}
		f, err := os.Open(arg)
		if err != nil {
			return nil, &InputError{Path: arg, Reason: fmt.Sprintf("%s: cannot read: %v", arg, unwrapPath(err))}
		}
		k := det.ByName(arg)
		if k == nil && det.Sniffs(arg) {
			head := make([]byte, DefaultChunkSize)
			n, _ := io.ReadFull(f, head)
			k = det.Detect(arg, head[:n])
		}
		f.Close()
		if k == nil && rc.SkipUnknown {
			out = append(out, Arg{Input: Input{Path: arg}}) // detected again, skipped and counted
			continue
		}
		if k == nil {
			return nil, Undetectable(arg)
		}
		out = append(out, Arg{Input: Input{Path: arg, Kind: k}})
	}
	return out, nil
}

// Undetectable is the InputError of an input whose kind cannot be
// determined (neither --kind, a glob nor sniffing gives one).
func Undetectable(path string) *InputError {
	return &InputError{Path: path, Reason: path + ": cannot determine the kind; name it with --kind (agentlint kinds lists them)"}
}

// unwrapPath returns the cause of a *fs.PathError (its path is already in
// the reason).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
