//! Regular expressions as Go's `regexp` (RE2 syntax) reads them, which is how Kubernetes
//! checks `pattern` and runs CEL's `matches`, `find` and `findAll`.
//!
//! The `regex` crate does the matching. Its syntax is close to Go's but not the same, so
//! [`translate`] reads the pattern as Go's parser does (syntax, errors and their wording)
//! and writes an equivalent pattern for the crate:
//!
//! - `\d`, `\w`, `\s` and `\b` are ASCII in Go (`\s` is `[\t\n\f\r ]`, without `\v`);
//!   the crate's are Unicode. They are written out as ASCII sets, and `\b`/`\B` as the
//!   crate's ASCII word boundary.
//! - Go reads `[` inside a class as a literal (except `[:alpha:]`), and `&&`, `--`, `~~`
//!   as characters, where the crate nests classes and applies set operations: class
//!   members are written escaped.
//! - `{` is a literal in Go unless it starts a well-formed count (`a{,5}`, `a{01}` and
//!   `a{` are literals); counts above 1000 and stacked repetitions (`a**`, `a{2}{3}`) are
//!   errors; a repetition may apply to `^` or `\b`; `(?i)` between an atom and its
//!   repetition does not separate them.
//! - `\Q...\E`, octal escapes (`\012`, not `\1`), `\z` and `(?)`; `\pN`/`\p{Greek}`
//!   only with Go's names (general categories and scripts, as written), scripts meaning
//!   the Script property (the crate's `\p{Greek}` means Script_Extensions); no `\<`, `\Z`,
//!   `(?x)`, `(?u)`; capture names as Go allows them (`(?P<1>x)`), not as the crate does.
//!
//! Differences that remain: the crate's Unicode tables are newer than Go 1.24's (15.0),
//! and Go's limit on nested counts (`(a{500}){3}`) is the crate's size limit here.

use std::fmt;

/// A pattern Go refuses, with Go's message:
/// ``error parsing regexp: missing closing ]: `[a` ``.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    message: String,
}

impl Error {
    fn go(code: &str, expr: &str) -> Self {
        Error { message: format!("error parsing regexp: {code}: `{expr}`") }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

const INVALID_CHAR_RANGE: &str = "invalid character class range";
const INVALID_ESCAPE: &str = "invalid escape sequence";
const INVALID_NAMED_CAPTURE: &str = "invalid named capture";
const INVALID_PERL_OP: &str = "invalid or unsupported Perl syntax";
const INVALID_REPEAT_OP: &str = "invalid nested repetition operator";
const INVALID_REPEAT_SIZE: &str = "invalid repeat count";
const MISSING_BRACKET: &str = "missing closing ]";
const MISSING_PAREN: &str = "missing closing )";
const MISSING_REPEAT_ARGUMENT: &str = "missing argument to repetition operator";
const TRAILING_BACKSLASH: &str = "trailing backslash at end of expression";
const UNEXPECTED_PAREN: &str = "unexpected )";

/// Compiles `pattern` as Go's `regexp.Compile` reads it. A pattern Go accepts may still
/// fail here when it is too large for the crate's limits (its own message then).
pub fn compile(pattern: &str) -> Result<regex::Regex, Error> {
    let translated = translate(pattern)?;
    regex::Regex::new(&translated).map_err(|e| Error { message: format!("error compiling regexp {pattern:?}: {e}") })
}

/// The `regex` crate pattern that matches what the Go pattern matches.
pub fn translate(pattern: &str) -> Result<String, Error> {
    Translator { whole: pattern, out: String::with_capacity(pattern.len() + 16), ..Translator::default() }.run()
}

/// Go's general categories and scripts (Unicode 15.0, Go 1.21 to 1.24), the names
/// `\p{...}` accepts besides `Any`.
const CATEGORIES: &[&str] = &[
    "C", "Cc", "Cf", "Co", "Cs", "L", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me", "Mn", "N", "Nd", "Nl", "No", "P",
    "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "S", "Sc", "Sk", "Sm", "So", "Z", "Zl", "Zp", "Zs",
];

/// See [`CATEGORIES`].
const SCRIPTS: &[&str] = &[
    "Adlam",
    "Ahom",
    "Anatolian_Hieroglyphs",
    "Arabic",
    "Armenian",
    "Avestan",
    "Balinese",
    "Bamum",
    "Bassa_Vah",
    "Batak",
    "Bengali",
    "Bhaiksuki",
    "Bopomofo",
    "Brahmi",
    "Braille",
    "Buginese",
    "Buhid",
    "Canadian_Aboriginal",
    "Carian",
    "Caucasian_Albanian",
    "Chakma",
    "Cham",
    "Cherokee",
    "Chorasmian",
    "Common",
    "Coptic",
    "Cuneiform",
    "Cypriot",
    "Cypro_Minoan",
    "Cyrillic",
    "Deseret",
    "Devanagari",
    "Dives_Akuru",
    "Dogra",
    "Duployan",
    "Egyptian_Hieroglyphs",
    "Elbasan",
    "Elymaic",
    "Ethiopic",
    "Georgian",
    "Glagolitic",
    "Gothic",
    "Grantha",
    "Greek",
    "Gujarati",
    "Gunjala_Gondi",
    "Gurmukhi",
    "Han",
    "Hangul",
    "Hanifi_Rohingya",
    "Hanunoo",
    "Hatran",
    "Hebrew",
    "Hiragana",
    "Imperial_Aramaic",
    "Inherited",
    "Inscriptional_Pahlavi",
    "Inscriptional_Parthian",
    "Javanese",
    "Kaithi",
    "Kannada",
    "Katakana",
    "Kawi",
    "Kayah_Li",
    "Kharoshthi",
    "Khitan_Small_Script",
    "Khmer",
    "Khojki",
    "Khudawadi",
    "Lao",
    "Latin",
    "Lepcha",
    "Limbu",
    "Linear_A",
    "Linear_B",
    "Lisu",
    "Lycian",
    "Lydian",
    "Mahajani",
    "Makasar",
    "Malayalam",
    "Mandaic",
    "Manichaean",
    "Marchen",
    "Masaram_Gondi",
    "Medefaidrin",
    "Meetei_Mayek",
    "Mende_Kikakui",
    "Meroitic_Cursive",
    "Meroitic_Hieroglyphs",
    "Miao",
    "Modi",
    "Mongolian",
    "Mro",
    "Multani",
    "Myanmar",
    "Nabataean",
    "Nag_Mundari",
    "Nandinagari",
    "New_Tai_Lue",
    "Newa",
    "Nko",
    "Nushu",
    "Nyiakeng_Puachue_Hmong",
    "Ogham",
    "Ol_Chiki",
    "Old_Hungarian",
    "Old_Italic",
    "Old_North_Arabian",
    "Old_Permic",
    "Old_Persian",
    "Old_Sogdian",
    "Old_South_Arabian",
    "Old_Turkic",
    "Old_Uyghur",
    "Oriya",
    "Osage",
    "Osmanya",
    "Pahawh_Hmong",
    "Palmyrene",
    "Pau_Cin_Hau",
    "Phags_Pa",
    "Phoenician",
    "Psalter_Pahlavi",
    "Rejang",
    "Runic",
    "Samaritan",
    "Saurashtra",
    "Sharada",
    "Shavian",
    "Siddham",
    "SignWriting",
    "Sinhala",
    "Sogdian",
    "Sora_Sompeng",
    "Soyombo",
    "Sundanese",
    "Syloti_Nagri",
    "Syriac",
    "Tagalog",
    "Tagbanwa",
    "Tai_Le",
    "Tai_Tham",
    "Tai_Viet",
    "Takri",
    "Tamil",
    "Tangsa",
    "Tangut",
    "Telugu",
    "Thaana",
    "Thai",
    "Tibetan",
    "Tifinagh",
    "Tirhuta",
    "Toto",
    "Ugaritic",
    "Vai",
    "Vithkuqi",
    "Wancho",
    "Warang_Citi",
    "Yezidi",
    "Yi",
    "Zanabazar_Square",
];

/// The names of `[[:name:]]`, which Go and the crate both read as ASCII sets.
const POSIX_CLASSES: &[&str] = &[
    "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper", "word",
    "xdigit",
];

/// Go's Perl classes, as sets for inside a class, and whether each is negated.
fn perl_class(c: char) -> Option<(&'static str, bool)> {
    Some(match c {
        'd' => ("0-9", false),
        'D' => ("0-9", true),
        's' => (r"\t\n\x0C\r ", false),
        'S' => (r"\t\n\x0C\r ", true),
        'w' => ("0-9A-Za-z_", false),
        'W' => ("0-9A-Za-z_", true),
        _ => return None,
    })
}

#[derive(Default)]
struct Translator<'a> {
    whole: &'a str,
    out: String,
    /// Where the last atom starts in `out`: what a repetition applies to (`None` at the
    /// start of an alternative, where a repetition has no argument).
    atom: Option<usize>,
    /// The text from the last repetition operator on (Go's `lastRepeat`), when the
    /// previous token was one: another repetition then is an error.
    last_repeat: Option<&'a str>,
    /// A flag group (`(?i)`) not yet written: it is written before the next atom, so
    /// that a repetition after it still applies to the atom before it, as in Go.
    pending_flags: String,
    /// Where each open group starts in `out`.
    groups: Vec<usize>,
}

impl<'a> Translator<'a> {
    fn run(mut self) -> Result<String, Error> {
        let mut t = self.whole;
        while let Some(c) = t.chars().next() {
            let mut repeat = None;
            match c {
                '(' => t = self.open_group(t)?,
                '|' => {
                    self.flush_flags();
                    self.out.push('|');
                    self.atom = None;
                    t = &t[1..];
                }
                ')' => {
                    self.flush_flags();
                    let Some(start) = self.groups.pop() else {
                        return Err(Error::go(UNEXPECTED_PAREN, self.whole));
                    };
                    self.out.push(')');
                    self.atom = Some(start);
                    t = &t[1..];
                }
                '^' | '$' | '.' => {
                    self.start_atom();
                    self.out.push(c);
                    t = &t[1..];
                }
                '[' => t = self.class(t)?,
                '*' | '+' | '?' => {
                    let after = self.repeat(t, 1)?;
                    repeat = Some(t);
                    t = after;
                }
                '{' => match parse_count(t) {
                    Some((min, max, after)) => {
                        let text = &t[..t.len() - after.len()];
                        if min > 1000 || max.is_some_and(|max| max > 1000 || max < min) {
                            return Err(Error::go(INVALID_REPEAT_SIZE, text));
                        }
                        let after = self.repeat(t, text.len())?;
                        repeat = Some(t);
                        t = after;
                    }
                    None => {
                        self.literal('{');
                        t = &t[1..];
                    }
                },
                '\\' => t = self.escape(t)?,
                c => {
                    self.literal(c);
                    t = &t[c.len_utf8()..];
                }
            }
            self.last_repeat = repeat;
        }
        if !self.groups.is_empty() {
            return Err(Error::go(MISSING_PAREN, self.whole));
        }
        self.flush_flags();
        Ok(self.out)
    }

    fn flush_flags(&mut self) {
        if !self.pending_flags.is_empty() {
            let flags = std::mem::take(&mut self.pending_flags);
            self.out.push_str(&flags);
        }
    }

    fn start_atom(&mut self) {
        self.flush_flags();
        self.atom = Some(self.out.len());
    }

    /// Opens a group with `open` (`(`, `(?i:`); its atom starts there.
    fn open(&mut self, open: &str) {
        self.start_atom();
        self.groups.push(self.out.len());
        self.atom = None;
        self.out.push_str(open);
    }

    fn literal(&mut self, c: char) {
        self.start_atom();
        let mut buf = [0; 4];
        self.out.push_str(&regex::escape(c.encode_utf8(&mut buf)));
    }

    /// A repetition operator at the start of `t`, `len` bytes long (a count's whole
    /// text), with an optional `?` after it.
    fn repeat(&mut self, t: &'a str, len: usize) -> Result<&'a str, Error> {
        let mut after = &t[len..];
        if after.starts_with('?') {
            after = &after[1..];
        }
        if let Some(last) = self.last_repeat {
            return Err(Error::go(INVALID_REPEAT_OP, &last[..last.len() - after.len()]));
        }
        let Some(atom) = self.atom else {
            return Err(Error::go(MISSING_REPEAT_ARGUMENT, &t[..t.len() - after.len()]));
        };
        // The crate does not repeat every atom Go does (`^*`): a group always works.
        self.out.insert_str(atom, "(?:");
        self.out.push(')');
        self.out.push_str(&t[..t.len() - after.len()]);
        Ok(after)
    }

    /// `(`, `(?:`, `(?flags)`, `(?flags:`, `(?P<name>` or `(?<name>`.
    fn open_group(&mut self, t: &'a str) -> Result<&'a str, Error> {
        if !t.starts_with("(?") {
            self.open("(");
            return Ok(&t[1..]);
        }
        let name_start = if t.starts_with("(?P<") && t.len() > 4 {
            Some(4)
        } else if t.starts_with("(?<") && t.len() > 3 {
            Some(3)
        } else {
            None
        };
        if let Some(name_start) = name_start {
            let Some(end) = t.find('>') else {
                return Err(Error::go(INVALID_NAMED_CAPTURE, t));
            };
            let name = &t[name_start..end];
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(Error::go(INVALID_NAMED_CAPTURE, &t[..=end]));
            }
            // Names do not change what matches; the crate's rules for them differ.
            self.open("(");
            return Ok(&t[end + 1..]);
        }
        // Flags: `i`, `m`, `s`, `U`, then optionally `-` and more, then `:` or `)`.
        let mut on = String::new();
        let mut off = String::new();
        let mut negated = false;
        let mut saw_flag = false;
        let mut rest = &t[2..];
        while let Some(c) = rest.chars().next() {
            rest = &rest[c.len_utf8()..];
            match c {
                'i' | 'm' | 's' | 'U' => {
                    // Each flag once for the crate; one both set and cleared ends cleared.
                    let list = if negated { &mut off } else { &mut on };
                    if !list.contains(c) {
                        list.push(c);
                    }
                    if negated {
                        on.retain(|f| f != c);
                    }
                    saw_flag = true;
                }
                '-' if !negated => {
                    negated = true;
                    saw_flag = false;
                }
                ':' | ')' if !negated || saw_flag => {
                    let flags = if off.is_empty() { on } else { format!("{on}-{off}") };
                    if c == ':' {
                        self.open(&format!("(?{flags}:"));
                    } else if !flags.is_empty() {
                        self.pending_flags.push_str(&format!("(?{flags})"));
                    }
                    return Ok(rest);
                }
                _ => break,
            }
        }
        Err(Error::go(INVALID_PERL_OP, &t[..t.len() - rest.len()]))
    }

    /// A backslash outside a class.
    fn escape(&mut self, t: &'a str) -> Result<&'a str, Error> {
        let mut chars = t[1..].chars();
        match chars.next() {
            Some(c @ ('A' | 'z')) => {
                self.start_atom();
                self.out.push('\\');
                self.out.push(c);
                return Ok(&t[2..]);
            }
            Some(c @ ('b' | 'B')) => {
                self.start_atom();
                self.out.push_str(&format!("(?-u:\\{c})"));
                return Ok(&t[2..]);
            }
            Some('C') => return Err(Error::go(INVALID_ESCAPE, &t[..2])),
            Some('Q') => {
                let (literal, rest) = match t[2..].split_once(r"\E") {
                    Some((literal, rest)) => (literal, rest),
                    None => (&t[2..], ""),
                };
                for c in literal.chars() {
                    self.literal(c);
                }
                return Ok(rest);
            }
            Some('p' | 'P') => {
                let (class, rest) = unicode_class(t)?;
                self.start_atom();
                self.out.push_str(&class);
                return Ok(rest);
            }
            Some(c) => {
                if let Some((set, negated)) = perl_class(c) {
                    self.start_atom();
                    self.out.push_str(if negated { "[^" } else { "[" });
                    self.out.push_str(set);
                    self.out.push(']');
                    return Ok(&t[2..]);
                }
            }
            None => {}
        }
        let (c, rest) = escaped_char(t)?;
        match c {
            Some(c) => self.literal(c),
            // A surrogate code point (`\x{D800}`): Go accepts it, and it matches nothing.
            None => {
                self.start_atom();
                self.out.push_str(r"[^\x{0}-\x{10FFFF}]");
            }
        }
        Ok(rest)
    }

    /// A bracketed class, written with every member escaped.
    fn class(&mut self, s: &'a str) -> Result<&'a str, Error> {
        let missing = || Error::go(MISSING_BRACKET, s);
        let mut t = &s[1..];
        let mut out = String::from("[");
        if let Some(rest) = t.strip_prefix('^') {
            out.push('^');
            t = rest;
        }
        let mut first = true;
        loop {
            match t.chars().next() {
                None => return Err(missing()),
                Some(']') if !first => break,
                _ => {}
            }
            first = false;
            // `[:alpha:]`, `[:^alpha:]`.
            if t.len() > 2
                && t.starts_with("[:")
                && let Some(end) = t[2..].find(":]")
            {
                let name = &t[..end + 4];
                let inner = &name[2..name.len() - 2];
                if !POSIX_CLASSES.contains(&inner.strip_prefix('^').unwrap_or(inner)) {
                    return Err(Error::go(INVALID_CHAR_RANGE, name));
                }
                out.push_str(name);
                t = &t[name.len()..];
                continue;
            }
            if t.starts_with("\\p") || t.starts_with("\\P") {
                let (class, rest) = unicode_class(t)?;
                out.push_str(&class);
                t = rest;
                continue;
            }
            if let Some((set, negated)) = t.strip_prefix('\\').and_then(|e| e.chars().next()).and_then(perl_class) {
                if negated {
                    out.push_str(&format!("[^{set}]"));
                } else {
                    out.push_str(set);
                }
                t = &t[2..];
                continue;
            }
            let range_start = t;
            let (lo, rest) = class_char(t, s)?;
            t = rest;
            let mut hi = lo;
            if t.len() >= 2 && t.starts_with('-') && !t[1..].starts_with(']') {
                let (end, rest) = class_char(&t[1..], s)?;
                t = rest;
                if end < lo {
                    return Err(Error::go(INVALID_CHAR_RANGE, &range_start[..range_start.len() - t.len()]));
                }
                hi = end;
            }
            push_class_range(&mut out, lo, hi);
        }
        out.push(']');
        self.start_atom();
        self.out.push_str(&out);
        Ok(&t[1..])
    }
}

/// `\p{Name}`, `\pN`, `\P{^Name}`: the crate's form of one of Go's classes, and the rest.
fn unicode_class(s: &str) -> Result<(String, &str), Error> {
    let mut negated = s.as_bytes()[1] == b'P';
    let t = &s[2..];
    let (sequence, mut name, rest) = match t.chars().next() {
        Some('{') => {
            let Some(end) = s.find('}') else {
                return Err(Error::go(INVALID_CHAR_RANGE, s));
            };
            (&s[..=end], &s[3..end], &s[end + 1..])
        }
        Some(c) => (&s[..2 + c.len_utf8()], &t[..c.len_utf8()], &t[c.len_utf8()..]),
        None => (s, "", ""),
    };
    if let Some(stripped) = name.strip_prefix('^') {
        negated = !negated;
        name = stripped;
    }
    let property = if name == "Any" {
        "Any".to_owned()
    } else if name == "Cs" {
        // Surrogates, which no `char` is: the crate has no class for them.
        let never = r"[^\x{0}-\x{10FFFF}]";
        return Ok((if negated { r"[\x{0}-\x{10FFFF}]" } else { never }.to_owned(), rest));
    } else if CATEGORIES.contains(&name) {
        format!("gc={name}")
    } else if SCRIPTS.contains(&name) {
        format!("sc={name}")
    } else {
        return Err(Error::go(INVALID_CHAR_RANGE, sequence));
    };
    Ok((format!("\\{}{{{property}}}", if negated { 'P' } else { 'p' }), rest))
}

/// One character of a class, escaped or not; `whole` is the class, for Go's error.
fn class_char<'a>(t: &'a str, whole: &str) -> Result<(u32, &'a str), Error> {
    match t.chars().next() {
        None => Err(Error::go(MISSING_BRACKET, whole)),
        Some('\\') => {
            let (c, rest) = escaped_char(t)?;
            // A surrogate stays a number: ranges compare it, and it matches nothing.
            Ok((c.map_or_else(|| surrogate_value(t), u32::from), rest))
        }
        Some(c) => Ok((u32::from(c), &t[c.len_utf8()..])),
    }
}

fn surrogate_value(t: &str) -> u32 {
    let digits: String = t.chars().skip(3).take_while(char::is_ascii_hexdigit).collect();
    u32::from_str_radix(&digits, 16).unwrap_or(0xD800)
}

/// Writes the range `lo..=hi` of a class, skipping the surrogates no `char` can be.
fn push_class_range(out: &mut String, lo: u32, hi: u32) {
    let mut push = |lo: u32, hi: u32| {
        if lo <= hi {
            out.push_str(&format!("\\x{{{lo:X}}}"));
            if hi > lo {
                out.push_str(&format!("-\\x{{{hi:X}}}"));
            }
        }
    };
    if lo <= 0xDFFF && hi >= 0xD800 {
        push(lo, 0xD7FF.min(hi));
        push(0xE000.max(lo), hi);
    } else {
        push(lo, hi);
    }
}

/// A single-character escape (Go's `parseEscape`): the character (`None` for a
/// surrogate code point) and the rest.
fn escaped_char(s: &str) -> Result<(Option<char>, &str), Error> {
    let t = &s[1..];
    let Some(c) = t.chars().next() else {
        return Err(Error::go(TRAILING_BACKSLASH, ""));
    };
    let rest = &t[c.len_utf8()..];
    let invalid = |rest: &str| Error::go(INVALID_ESCAPE, &s[..s.len() - rest.len()]);
    // Up to two more octal digits after the first.
    let octal = |first: u32| {
        let digits = rest.bytes().take(2).take_while(|b| (b'0'..=b'7').contains(b)).count();
        let value = rest[..digits].bytes().fold(first, |n, b| n * 8 + u32::from(b - b'0'));
        (char::from_u32(value), &rest[digits..])
    };
    match c {
        c if c.is_ascii() && !c.is_ascii_alphanumeric() => Ok((Some(c), rest)),
        '1'..='7' if rest.starts_with(|c: char| ('0'..='7').contains(&c)) => Ok(octal(c as u32 - '0' as u32)),
        '0' => Ok(octal(0)),
        'a' => Ok((Some('\x07'), rest)),
        'f' => Ok((Some('\x0C'), rest)),
        'n' => Ok((Some('\n'), rest)),
        'r' => Ok((Some('\r'), rest)),
        't' => Ok((Some('\t'), rest)),
        'v' => Ok((Some('\x0B'), rest)),
        'x' => {
            if let Some(braced) = rest.strip_prefix('{') {
                // Go reads hex digits up to `}`, and names the text up to where it stopped.
                let mut value = 0;
                for (i, c) in braced.char_indices() {
                    let after = &braced[i + c.len_utf8()..];
                    match c.to_digit(16) {
                        _ if c == '}' && i > 0 => return Ok((char::from_u32(value), after)),
                        Some(digit) if c != '}' => {
                            value = value * 16 + digit;
                            if value > 0x10FFFF {
                                return Err(invalid(after));
                            }
                        }
                        _ => return Err(invalid(after)),
                    }
                }
                return Err(invalid(""));
            }
            let mut digits = rest.chars();
            let (x, y) = (digits.next(), digits.next());
            match (x.and_then(|x| x.to_digit(16)), y.and_then(|y| y.to_digit(16))) {
                (Some(x), Some(y)) => Ok((char::from_u32(x * 16 + y), &rest[2..])),
                _ => {
                    let taken = x.map_or(0, char::len_utf8) + y.map_or(0, char::len_utf8);
                    Err(invalid(&rest[taken..]))
                }
            }
        }
        _ => Err(invalid(rest)),
    }
}

/// A well-formed count at the start of `t`: `{n}`, `{n,}` or `{n,m}` (no leading zeros),
/// as Go's `parseRepeat` reads it: the minimum, the maximum (`None`: unbounded) and the
/// rest; `None` when `{` is a literal. Large numbers saturate: above 1000 they are all
/// the same error.
fn parse_count(t: &str) -> Option<(u64, Option<u64>, &str)> {
    fn number(s: &str) -> Option<(u64, &str)> {
        let digits = s.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || (digits >= 2 && s.starts_with('0')) {
            return None;
        }
        let value = s[..digits].bytes().fold(0u64, |n, d| n.saturating_mul(10).saturating_add(u64::from(d - b'0')));
        Some((value, &s[digits..]))
    }
    let (min, rest) = number(t.strip_prefix('{')?)?;
    let (max, rest) = match rest.strip_prefix(',') {
        None => (Some(min), rest),
        Some(rest) if rest.starts_with('}') => (None, rest),
        Some(rest) => number(rest).map(|(max, rest)| (Some(max), rest))?,
    };
    Some((min, max, rest.strip_prefix('}')?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, text: &str) -> bool {
        compile(pattern).unwrap_or_else(|e| panic!("{pattern}: {e}")).is_match(text)
    }

    #[test]
    fn ascii_perl_classes() {
        assert!(!matches(r"^\d+$", "١٢٣"), "Arabic-Indic digits are not \\d in RE2");
        assert!(matches(r"^\d+$", "123"));
        assert!(!matches(r"^\w+$", "é"));
        assert!(!matches(r"^\s$", "\u{a0}"));
        assert!(!matches(r"^\s$", "\x0B"), "\\s has no \\v in RE2");
        assert!(matches(r"^[\s]$", "\x0C"));
        assert!(!matches(r"é\b", "é "), "é is no word character for \\b");
        assert!(matches(r"a\bé", "aé"), "a boundary between a and é");
    }

    #[test]
    fn go_syntax_the_crate_reads_otherwise() {
        assert!(matches(r"^[[a]+$", "[a["), "[ is a literal in a class");
        assert!(matches(r"^[a&&b]+$", "&"), "no intersection");
        assert!(matches(r"^a{,2}$", "a{,2}"), "a literal brace");
        assert!(matches(r"^a{01}$", "a{01}"));
        assert!(matches(r"^\Q.*\E$", ".*"));
        assert!(matches(r"^\101$", "A"));
        assert!(matches(r"^(?P<1>x)$", "x"));
        assert!(matches(r"^*a", "a"));
        assert!(matches(r"^a(?i)*$", "aaa"));
        assert!(matches(r"^\<$", "<"));
    }

    #[test]
    fn go_errors() {
        let error = |p: &str| compile(p).unwrap_err().to_string();
        assert_eq!(error("[a"), "error parsing regexp: missing closing ]: `[a`");
        assert_eq!(error("a**"), "error parsing regexp: invalid nested repetition operator: `**`");
        assert_eq!(error("a{1001}"), "error parsing regexp: invalid repeat count: `{1001}`");
        assert_eq!(error(r"\1"), "error parsing regexp: invalid escape sequence: `\\1`");
        assert_eq!(error(r"\p{Greek_}"), "error parsing regexp: invalid character class range: `\\p{Greek_}`");
        assert_eq!(error("(?x)"), "error parsing regexp: invalid or unsupported Perl syntax: `(?x`");
        assert_eq!(error("(a"), "error parsing regexp: missing closing ): `(a`");
        assert_eq!(error("a)"), "error parsing regexp: unexpected ): `a)`");
        assert_eq!(error("*"), "error parsing regexp: missing argument to repetition operator: `*`");
    }
}
