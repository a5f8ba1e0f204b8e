// Command capture writes the test vectors of the tfp-gostd crate: inputs and what Go's standard
// library makes of them, one JSON object a line, in the directory above this one.
//
// Run it from this directory with `go run .`; it uses the standard library only.
package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"unicode/utf8"
)

func main() {
	files := []struct {
		name  string
		lines func() []any
	}{
		{"json_strings.jsonl", jsonStrings},
		{"json_floats.jsonl", jsonFloats},
		{"json_decode.jsonl", jsonDecode},
		{"json_indent.jsonl", jsonIndent},
		{"strconv_floats.jsonl", strconvFloats},
		{"strconv_quote.jsonl", strconvQuote},
		{"strconv_printable.jsonl", strconvPrintable},
		{"strconv_parse.jsonl", strconvParse},
		{"big_text.jsonl", bigText},
		{"rand_chacha8.jsonl", randChaCha8},
	}
	if err := os.WriteFile(filepath.Join("..", "..", "src", "strconv", "printable.rs"), printableTable(), 0o644); err != nil {
		fail(err)
	}
	for _, f := range files {
		var out bytes.Buffer
		for _, line := range f.lines() {
			b, err := json.Marshal(line)
			if err != nil {
				fail(err)
			}
			out.Write(b)
			out.WriteByte('\n')
		}
		if err := os.WriteFile(filepath.Join("..", f.name), out.Bytes(), 0o644); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

// Strings whose bytes the vectors give in hex, so that invalid UTF-8 survives the trip.
var texts = []string{
	"",
	"plain ascii",
	"\"quotes\" and \\backslash\\ and /slash/",
	"\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f",
	"\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x20\x7f",
	"<script>a && b</script>",
	"line\u2028separator\u2029paragraph",
	"é ñ ü \u00a0 \u00ad",
	"\u0085 \u009f \u200b \u200e \u202a \u2060 \ufeff \ufff9",
	"\u0301 e\u0301 \u0378 \u3000 \ue000 \U000f0000 \U0010ffff",
	"😀 \U0001f600 \U000e0001 \U0001d11e",
	"\ufffd literal replacement",
	"\xff",
	"a\xffb",
	"\xc3\x28",
	"\xe2\x80",
	"\xe2\x80x",
	"\xed\xa0\x80",
	"\xf4\x90\x80\x80",
	"\xc0\x80",
	"\x80\x80\x80",
	"tab\there, bell\a, vtab\v",
}

type textVector struct {
	Input  string `json:"input"`
	Output string `json:"output"`
}

func jsonStrings() []any {
	var lines []any
	for _, s := range texts {
		b, err := json.Marshal(s)
		if err != nil {
			fail(err)
		}
		lines = append(lines, textVector{hex.EncodeToString([]byte(s)), string(b)})
	}
	return lines
}

func strconvQuote() []any {
	var lines []any
	for _, s := range texts {
		lines = append(lines, textVector{hex.EncodeToString([]byte(s)), strconv.Quote(s)})
	}
	return lines
}

var float64s = []float64{
	0, math.Copysign(0, -1), 1, -1, 0.1, 0.5, 1.5, -2.25, 100, 123456, 1234567, 1e6, 1e20, 1e21,
	-1e21, 1e22, 123456789.123, 1e-4, 1e-5, 1e-6, 9.99e-7, 1e-7, -1.5e-7, 2.5e-10, 1.23e122,
	1e100, 1e300, 0.3, 1.0 / 3, 2.0 / 3, 9007199254740992, 9007199254740993, 12345678901234567890,
	math.MaxFloat64, math.SmallestNonzeroFloat64, 2.2250738585072014e-308, 1e-310, 4.9e-324,
	math.Pi, math.E, math.NaN(), math.Inf(1), math.Inf(-1),
}

var float32s = []float32{
	0, 1, 0.1, 1.5, 3.14159, 16777216, 16777217, 1e6, 1e20, 1e21, 1e-6, 1e-7, 2.5e-10,
	math.MaxFloat32, math.SmallestNonzeroFloat32, float32(math.Inf(1)),
}

type floatInput struct {
	Bits string `json:"bits"`
	Size int    `json:"size"`
}

func floatInputs() []struct {
	input floatInput
	value float64
} {
	var out []struct {
		input floatInput
		value float64
	}
	for _, f := range float64s {
		out = append(out, struct {
			input floatInput
			value float64
		}{floatInput{fmt.Sprintf("%016x", math.Float64bits(f)), 64}, f})
	}
	for _, f := range float32s {
		out = append(out, struct {
			input floatInput
			value float64
		}{floatInput{fmt.Sprintf("%08x", math.Float32bits(f)), 32}, float64(f)})
	}
	return out
}

type jsonFloat struct {
	floatInput
	// Output is Go's json.Marshal of the float; null when Marshal fails.
	Output *string `json:"output"`
}

func jsonFloats() []any {
	var lines []any
	for _, in := range floatInputs() {
		var v any = in.value
		if in.input.Size == 32 {
			v = float32(in.value)
		}
		line := jsonFloat{floatInput: in.input}
		if b, err := json.Marshal(v); err == nil {
			s := string(b)
			line.Output = &s
		}
		lines = append(lines, line)
	}
	return lines
}

type strconvFloat struct {
	floatInput
	F string `json:"f"`
	E string `json:"e"`
	G string `json:"g"`
	// V is fmt's %v, which is 'g' for floats.
	V string `json:"v"`
}

func strconvFloats() []any {
	var lines []any
	for _, in := range floatInputs() {
		line := strconvFloat{
			floatInput: in.input,
			F:          strconv.FormatFloat(in.value, 'f', -1, in.input.Size),
			E:          strconv.FormatFloat(in.value, 'e', -1, in.input.Size),
			G:          strconv.FormatFloat(in.value, 'g', -1, in.input.Size),
		}
		if in.input.Size == 32 {
			line.V = fmt.Sprintf("%v", float32(in.value))
		} else {
			line.V = fmt.Sprintf("%v", in.value)
		}
		lines = append(lines, line)
	}
	return lines
}

type printableRange struct {
	First rune `json:"first"`
	Last  rune `json:"last"`
}

// strconvPrintable lists the runes strconv.IsPrint accepts, as maximal ranges.
func strconvPrintable() []any {
	var lines []any
	start := rune(-1)
	for r := rune(0); r <= utf8.MaxRune+1; r++ {
		printable := r <= utf8.MaxRune && strconv.IsPrint(r)
		switch {
		case printable && start < 0:
			start = r
		case !printable && start >= 0:
			lines = append(lines, printableRange{start, r - 1})
			start = -1
		}
	}
	return lines
}

// printableTable is the Rust source of the same ranges, which strconv::quote consults.
func printableTable() []byte {
	var out bytes.Buffer
	fmt.Fprintf(&out, "//! The runes Go's `strconv.IsPrint` accepts, as inclusive ranges in ascending order.\n")
	fmt.Fprintf(&out, "//!\n")
	fmt.Fprintf(&out, "//! Generated by `testdata/capture` (`go run .`) with %s; do not edit.\n\n", runtime.Version())
	fmt.Fprintf(&out, "/// Inclusive ranges of printable runes.\n#[rustfmt::skip]\npub(super) const PRINTABLE: &[(u32, u32)] = &[\n")
	for i, line := range strconvPrintable() {
		r := line.(printableRange)
		if i%4 == 0 {
			out.WriteString("   ")
		}
		fmt.Fprintf(&out, " (0x%x, 0x%x),", r.First, r.Last)
		if i%4 == 3 {
			out.WriteString("\n")
		}
	}
	if !bytes.HasSuffix(out.Bytes(), []byte("\n")) {
		out.WriteString("\n")
	}
	out.WriteString("];\n")
	return out.Bytes()
}

type parseVector struct {
	Input string `json:"input"`
	// Int is strconv.ParseInt(input, 10, 64), or null when it fails.
	Int *string `json:"int"`
	// FloatBits is the float64 of strconv.ParseFloat(input, 64) in hex, or null when it fails.
	FloatBits *string `json:"float_bits"`
}

func strconvParse() []any {
	inputs := []string{
		"0", "-0", "+0", "42", "+7", "-12", "007", "9223372036854775807", "-9223372036854775808",
		"9223372036854775808", "9223372036854775809", "18446744073709551616", "1.5", "-1.5", ".5",
		"5.", "1e3", "1E3", "1e+3", "1e-3", "-1.5e-10", "1_000", "1__0", "_1", "1_", "1_000.5",
		"1.0_5", "1e1_0", "Inf", "+Inf", "-Inf", "inf", "infinity", "-Infinity", "NaN", "nan",
		"1e308", "1e309", "-1e400", "1e-400", "4.9e-324", "2e-324", "0x10", "0x1p-2", "0b101",
		"", " 1", "1 ", "abc", "1.5.5", "--1", "+-1", "1e", "e1", "١",
		"0.1", "0.30000000000000004", "123456789012345678901234567890",
	}
	var lines []any
	for _, s := range inputs {
		line := parseVector{Input: s}
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			text := strconv.FormatInt(i, 10)
			line.Int = &text
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			bits := fmt.Sprintf("%016x", math.Float64bits(f))
			line.FloatBits = &bits
		}
		lines = append(lines, line)
	}
	return lines
}

type decodeVector struct {
	Input string `json:"input"`
	// Tokens is what a json.Decoder with UseNumber reads, one token a string: `{`, `}`, `[`,
	// `]`, `null`, `true`, `false`, `n:` and a number's text, `s:` and a decoded string (object
	// keys included); null when the input is not one valid JSON value.
	Tokens []string `json:"tokens"`
}

func jsonDecode() []any {
	inputs := []string{
		`0`, `-0`, `-0.0`, `1.50`, `1e5`, `1E+5`, `-1.5e-10`, `123456789012345678901234567890`,
		`1e400`, `-1e-400`, `9007199254740993`, ` 42 `, "\t\n\r 42\n",
		`01`, `1.`, `.5`, `+1`, `-`, `1e`, `1e+`, `0x10`, `NaN`, `Infinity`, `1 2`, ``, ` `,
		`null`, `true`, `false`, `nul`, `True`,
		`[]`, `{}`, `[1,2,3]`, `[1,]`, `[,1]`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{a:1}`,
		`{"b":1,"a":[true,false,null],"a":{"c":"d"}}`, `[[[[[]]]]]`, `{"":""}`,
		`"plain"`, `"\"\\\/\b\f\n\r\t"`, `"\u00e9\u00E9"`, `"\ud83d\ude00"`, `"\ud800"`,
		`"\ud800x"`, `"\ud800\u0041"`, `"\udc00"`, `"\ud800\ud800\udc00"`, `"\ude00\ud83d"`,
		`"\u0000"`, `"\u12"`, `"\u12G4"`, `"\x"`, `"\'"`, "\"tab\there\"", "\"nl\nhere\"",
		"\"\x01\"", "\"\x7f\"", "\"\xff\"", "\"a\xffb\"", "\"\xe2\x80\"", "\"\xe2\x80x\"",
		"\"\xed\xa0\x80\"", "\"\xc0\x80\"", "\"\xf4\x90\x80\x80\"", "\"\u2028<&>\"", `"unterminated`,
		"\xef\xbb\xbf1", `[1 2]`, `{"a" 1}`, `{"a":1 "b":2}`,
	}
	var lines []any
	for _, s := range inputs {
		line := decodeVector{Input: hex.EncodeToString([]byte(s))}
		if json.Valid([]byte(s)) {
			line.Tokens = tokens(s)
		}
		lines = append(lines, line)
	}
	return lines
}

func tokens(s string) []string {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	out := []string{}
	for {
		t, err := dec.Token()
		if err != nil {
			if err.Error() == "EOF" {
				return out
			}
			fail(fmt.Errorf("token of valid JSON %q: %w", s, err))
		}
		switch t := t.(type) {
		case json.Delim:
			out = append(out, t.String())
		case nil:
			out = append(out, "null")
		case bool:
			out = append(out, strconv.FormatBool(t))
		case json.Number:
			out = append(out, "n:"+string(t))
		case string:
			out = append(out, "s:"+t)
		default:
			fail(fmt.Errorf("unexpected token %T", t))
		}
	}
}

type indentVector struct {
	Input  string `json:"input"`
	Prefix string `json:"prefix"`
	Indent string `json:"indent"`
	Output string `json:"output"`
}

func jsonIndent() []any {
	type inner struct {
		Name  string            `json:"name"`
		Tags  map[string]string `json:"tags"`
		Empty []int             `json:"empty"`
		None  map[string]int    `json:"none"`
		Nil   []int             `json:"nil"`
	}
	nested := map[string]any{
		"b":      []any{1, 2.5, "x<y>", nil, true, []any{}, map[string]any{}},
		"a":      inner{Name: "n", Tags: map[string]string{"z": "1", "k": "2"}, Empty: []int{}, None: map[string]int{}},
		"deeper": []any{[]any{[]any{map[string]any{"k": []any{1}}}}},
		"s":      "line\u2028break & \"quote\"",
	}
	var lines []any
	for _, v := range []any{nested, []any{}, map[string]any{}, 1, "s", []any{1, []any{2, []any{3}}}} {
		compact, err := json.Marshal(v)
		if err != nil {
			fail(err)
		}
		for _, style := range [][2]string{{"", "    "}, {"", "  "}, {"> ", "\t"}} {
			marshalled, err := json.MarshalIndent(v, style[0], style[1])
			if err != nil {
				fail(err)
			}
			var indented bytes.Buffer
			if err := json.Indent(&indented, compact, style[0], style[1]); err != nil {
				fail(err)
			}
			if indented.String() != string(marshalled) {
				fail(fmt.Errorf("Indent and MarshalIndent differ for %s", compact))
			}
			lines = append(lines, indentVector{string(compact), style[0], style[1], string(marshalled)})
		}
	}
	// Indent drops the insignificant space it is given and keeps trailing space.
	spaced := " { \"a\" : [ 1 , { } , [ ] ] ,\n\t\"b\" : \"c d\" } \n"
	var out bytes.Buffer
	if err := json.Indent(&out, []byte(spaced), "", "  "); err != nil {
		fail(err)
	}
	lines = append(lines, indentVector{spaced, "", "  ", out.String()})
	return lines
}

type bigVector struct {
	Input  string `json:"input"`
	Output string `json:"output"`
}

// bigText is how go-cty prints numbers in set hash strings: big.Float.String(), which is
// Text('g', 10), of numbers parsed at go-cty's 512 bits.
func bigText() []any {
	inputs := []string{
		"3", "-3", "100", "-0.5", "0.1", "1234567890", "10000000000", "12345678901", "99999999999",
		"9999999999.4", "0.0001", "0.00001", "0.000012345678", "3.14159265358979", "9.9999999999",
		"0.12345678904", "0.12345678916", "1e21", "1.5e300", "-2.5e-300", "123456.7890123",
		"42.000000000001", "1e-7", "0.1000000000",
	}
	var lines []any
	for _, s := range inputs {
		f, _, err := big.ParseFloat(s, 10, 512, big.ToNearestEven)
		if err != nil {
			fail(err)
		}
		lines = append(lines, bigVector{s, f.String()})
	}
	return lines
}

type chacha8Vector struct {
	Seed   string   `json:"seed"`
	Uint64 []string `json:"uint64"`
}

// randChaCha8 is the stream of rand.ChaCha8 (`Uint64`) for a few seeds, long enough to cross
// several refills and rekeys; the numbers are hex, since JSON numbers lose bits above 2^53.
func randChaCha8() []any {
	seeds := [][32]byte{
		{},
		[32]byte([]byte("chacha8rand example seed 0123456")),
	}
	for i := range seeds[1] {
		seeds[1][i] ^= byte(i * 7)
	}
	var lines []any
	for _, seed := range seeds {
		r := rand.NewChaCha8(seed)
		var out []string
		for range 300 {
			out = append(out, strconv.FormatUint(r.Uint64(), 16))
		}
		lines = append(lines, chacha8Vector{hex.EncodeToString(seed[:]), out})
	}
	return lines
}
