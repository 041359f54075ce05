// The Go side of the differential tests (tests/tests/go_exact.rs): answers questions
// about Go's standard library, whose behaviour Kubernetes inherits, so that the Rust
// reimplementations can be compared with the real thing. Standard library only.
//
// Protocol, over stdin and stdout: one request per line, a JSON object
// {"fn": NAME, "inputs": [[arg, ...], ...]}; one response per line, a JSON array with
// one answer per input, {"ok": VALUE} or {"err": MESSAGE}. Adding a function is one
// entry in `functions`.
package main

import (
	"bufio"
	"encoding/base64"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"os"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
)

type answer struct {
	Ok  any    `json:"ok,omitempty"`
	Err string `json:"err,omitempty"`
}

func ok(v any) answer { return answer{Ok: v} }

func fail(err error) answer { return answer{Err: err.Error()} }

// Kubernetes' layouts for metav1.Time and metav1.MicroTime.
const rfc3339Micro = "2006-01-02T15:04:05.000000Z07:00"

// A parsed time as "seconds.nanoseconds" since the Unix epoch: offsets are gone, as in
// the API server, which converts every time to local time before using it.
func instant(t time.Time) string {
	return fmt.Sprintf("%d.%09d", t.Unix(), t.Nanosecond())
}

func parseTime(layout string) func([]string) answer {
	return func(args []string) answer {
		t, err := time.Parse(layout, args[0])
		if err != nil {
			return fail(err)
		}
		return ok(instant(t))
	}
}

// A JSON value as Kubernetes decodes an object it prints in messages
// (k8s.io/apimachinery/pkg/util/json): numbers become int64 when they fit, else float64.
func decodeJSON(text string) (any, error) {
	decoder := json.NewDecoder(strings.NewReader(text))
	decoder.UseNumber()
	var value any
	if err := decoder.Decode(&value); err != nil {
		return nil, err
	}
	return convertNumbers(value), nil
}

func convertNumbers(value any) any {
	switch v := value.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	case map[string]any:
		for key, item := range v {
			v[key] = convertNumbers(item)
		}
	case []any:
		for i, item := range v {
			v[i] = convertNumbers(item)
		}
	}
	return value
}

// fmt.Sprintf with one verb on a JSON value, decoded as Kubernetes decodes it.
func sprintf(verb string) func([]string) answer {
	return func(args []string) answer {
		value, err := decodeJSON(args[0])
		if err != nil {
			return fail(err)
		}
		return ok(fmt.Sprintf(verb, value))
	}
}

var functions = map[string]func(args []string) answer{
	// %q of a string, as messages quote names and values.
	"fmt.q": func(args []string) answer { return ok(fmt.Sprintf("%q", args[0])) },
	// %v of a JSON value, as messages print bad values.
	"fmt.v": sprintf("%v"),
	// encoding/json of a JSON value.
	"json.Marshal": func(args []string) answer {
		value, err := decodeJSON(args[0])
		if err != nil {
			return fail(err)
		}
		out, err := json.Marshal(value)
		if err != nil {
			return fail(err)
		}
		return ok(string(out))
	},

	// runtime.Version(), to tell which Go answers.
	"version": func([]string) answer { return ok(runtime.Version()) },

	// encoding/json's []byte decoding: base64.StdEncoding; the bytes in hex.
	"base64": func(args []string) answer {
		b, err := base64.StdEncoding.DecodeString(args[0])
		if err != nil {
			return fail(err)
		}
		return ok(hex.EncodeToString(b))
	},

	// regexp.Compile(pattern), then MatchString of every further argument.
	"regexp": func(args []string) answer {
		re, err := regexp.Compile(args[0])
		if err != nil {
			return fail(err)
		}
		matches := []bool{}
		for _, s := range args[1:] {
			matches = append(matches, re.MatchString(s))
		}
		return ok(matches)
	},

	// The names \p{...} accepts: unicode.Categories and unicode.Scripts.
	"unicode.classes": func([]string) answer {
		names := []string{}
		for name := range unicode.Categories {
			names = append(names, name)
		}
		for name := range unicode.Scripts {
			names = append(names, name)
		}
		sort.Strings(names)
		return ok(names)
	},

	"time.rfc3339": parseTime(time.RFC3339),
	"time.micro":   parseTime(rfc3339Micro),
	"time.date":    parseTime("2006-01-02"),

	// A time given as seconds and nanoseconds since the epoch, written in UTC the way
	// metav1.Time and metav1.MicroTime write it.
	"time.format": func(args []string) answer {
		sec, err := strconv.ParseInt(args[0], 10, 64)
		if err != nil {
			return fail(err)
		}
		nsec, err := strconv.ParseInt(args[1], 10, 64)
		if err != nil {
			return fail(err)
		}
		t := time.Unix(sec, nsec).UTC()
		return ok([]string{t.Format(time.RFC3339), t.Format(rfc3339Micro)})
	},

	"strconv.ParseInt0": func(args []string) answer {
		n, err := strconv.ParseInt(args[0], 0, 64)
		if err != nil {
			return fail(err)
		}
		return ok(strconv.FormatInt(n, 10))
	},

	"strconv.ParseUint0": func(args []string) answer {
		n, err := strconv.ParseUint(args[0], 0, 64)
		if err != nil {
			return fail(err)
		}
		return ok(strconv.FormatUint(n, 10))
	},

	// The float in its shortest form ('g'), which tells NaN, infinities and -0 apart.
	"strconv.ParseFloat": func(args []string) answer {
		f, err := strconv.ParseFloat(args[0], 64)
		if err != nil {
			return fail(err)
		}
		return ok(strconv.FormatFloat(f, 'g', -1, 64))
	},

	// url.ParseQuery: the values by key (Go's map loses the order across keys), and
	// the error, if any, in "error".
	"url.ParseQuery": func(args []string) answer {
		values, err := url.ParseQuery(args[0])
		result := map[string]any{"values": hexValues(values)}
		if err != nil {
			result["error"] = err.Error()
		}
		return ok(result)
	},

	"url.ParseRequestURI": func(args []string) answer {
		u, err := url.ParseRequestURI(args[0])
		if err != nil {
			return fail(err)
		}
		return ok(u.String())
	},

	// net.ParseIP: the address as net.IP.String() writes it, or "" when it is none.
	"net.ParseIP": func(args []string) answer {
		ip := net.ParseIP(args[0])
		if ip == nil {
			return ok("")
		}
		return ok(ip.String())
	},

	"net.ParseCIDR": func(args []string) answer {
		ip, network, err := net.ParseCIDR(args[0])
		if err != nil {
			return fail(err)
		}
		return ok([]string{ip.String(), network.String()})
	},

	"net.ParseMAC": func(args []string) answer {
		mac, err := net.ParseMAC(args[0])
		if err != nil {
			return fail(err)
		}
		return ok(mac.String())
	},

	"netip.ParseAddr": func(args []string) answer {
		addr, err := netip.ParseAddr(args[0])
		if err != nil {
			return fail(err)
		}
		return ok(addr.String())
	},

	"netip.ParsePrefix": func(args []string) answer {
		prefix, err := netip.ParsePrefix(args[0])
		if err != nil {
			return fail(err)
		}
		return ok(prefix.String())
	},

	"time.ParseDuration": func(args []string) answer {
		d, err := time.ParseDuration(args[0])
		if err != nil {
			return fail(err)
		}
		return ok(strconv.FormatInt(int64(d), 10))
	},

	// encoding/csv as the API server reads a token file: records of any length.
	"csv": func(args []string) answer {
		reader := csv.NewReader(strings.NewReader(args[0]))
		reader.FieldsPerRecord = -1
		records := [][]string{}
		for {
			record, err := reader.Read()
			if err == io.EOF {
				return ok(records)
			}
			if err != nil {
				return fail(err)
			}
			records = append(records, record)
		}
	},
}

// Query values with keys and values in hex: unescaping may produce bytes that are not
// UTF-8, which JSON cannot carry.
func hexValues(values url.Values) map[string][]string {
	out := map[string][]string{}
	for key, list := range values {
		encoded := []string{}
		for _, value := range list {
			encoded = append(encoded, hex.EncodeToString([]byte(value)))
		}
		out[hex.EncodeToString([]byte(key))] = encoded
	}
	return out
}

type request struct {
	Fn     string     `json:"fn"`
	Inputs [][]string `json:"inputs"`
}

func main() {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	encoder := json.NewEncoder(out)
	encoder.SetEscapeHTML(false)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			return
		}
		var req request
		if err := json.Unmarshal(line, &req); err != nil {
			fmt.Fprintln(os.Stderr, "bad request:", err)
			os.Exit(2)
		}
		function, known := functions[req.Fn]
		if !known {
			fmt.Fprintln(os.Stderr, "unknown function:", req.Fn)
			os.Exit(2)
		}
		answers := make([]answer, len(req.Inputs))
		for i, args := range req.Inputs {
			answers[i] = function(args)
		}
		if err := encoder.Encode(answers); err != nil {
			fmt.Fprintln(os.Stderr, "writing:", err)
			os.Exit(2)
		}
		out.Flush()
	}
}
