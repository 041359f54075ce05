//! `encoding/csv` with `FieldsPerRecord = -1`, as the API server reads its token file.
//!
//! Written by hand: the `csv` crate is lenient where Go is strict (a `"` inside an
//! unquoted field, text after a closing quote), and Go's errors name lines and columns.

/// Every record of `text`, as Go's `csv.Reader.Read` returns them until `io.EOF`: fields
/// separated by `,`, optionally double-quoted (`""` is a quote, and a quoted field may span
/// lines), `\r\n` read as `\n`, empty lines skipped. The error is Go's `csv.ParseError`
/// text, `parse error on line 2, column 5: bare " in non-quoted-field`.
pub fn read_all(text: &str) -> Result<Vec<Vec<String>>, String> {
    let mut reader = Reader { rest: text.as_bytes(), line: 0 };
    let mut records = Vec::new();
    while let Some(record) = reader.record()? {
        records.push(record);
    }
    Ok(records)
}

struct Reader<'a> {
    rest: &'a [u8],
    /// The number of lines read.
    line: usize,
}

/// Go's `csv.ParseError`.
fn parse_error(start_line: usize, line: usize, column: usize, quoted: bool) -> String {
    let error = if quoted { "extraneous or missing \" in quoted-field" } else { "bare \" in non-quoted-field" };
    if start_line == line {
        format!("parse error on line {line}, column {column}: {error}")
    } else {
        format!("record on line {start_line}; parse error on line {line}, column {column}: {error}")
    }
}

/// 1 if the line ends with its `\n`.
fn newline_len(line: &[u8]) -> usize {
    usize::from(line.last() == Some(&b'\n'))
}

impl<'a> Reader<'a> {
    /// The next line with its `\n` (`\r\n` becomes `\n`; a `\r` ending the input is
    /// dropped), or `None` at the end.
    fn next_line(&mut self) -> Option<Vec<u8>> {
        if self.rest.is_empty() {
            return None;
        }
        let end = self.rest.iter().position(|&b| b == b'\n').map_or(self.rest.len(), |i| i + 1);
        let (line, rest) = self.rest.split_at(end);
        self.rest = rest;
        self.line += 1;
        let mut line = line.to_vec();
        if line.ends_with(b"\r\n") {
            line.truncate(line.len() - 2);
            line.push(b'\n');
        } else if rest.is_empty() && line.last() == Some(&b'\r') {
            line.pop();
        }
        Some(line)
    }

    fn record(&mut self) -> Result<Option<Vec<String>>, String> {
        let mut line = loop {
            match self.next_line() {
                None => return Ok(None),
                Some(line) if line.len() == newline_len(&line) => continue,
                Some(line) => break line,
            }
        };
        let start_line = self.line;
        // Where a quoted field runs into the end of the input: the last line with text.
        let mut position_line = self.line;
        let mut fields: Vec<Vec<u8>> = Vec::new();
        let mut column = 1;
        let mut at = 0;
        loop {
            if line.get(at) != Some(&b'"') {
                let comma = line[at..].iter().position(|&b| b == b',');
                let end = comma.map_or(line.len() - newline_len(&line), |i| at + i);
                let field = &line[at..end];
                if let Some(j) = field.iter().position(|&b| b == b'"') {
                    return Err(parse_error(start_line, self.line, column + j, false));
                }
                fields.push(field.to_vec());
                match comma {
                    Some(i) => {
                        column += i + 1;
                        at = end + 1;
                        continue;
                    }
                    None => break,
                }
            }
            // A quoted field, which may go on over several lines.
            let mut field = Vec::new();
            at += 1;
            column += 1;
            loop {
                if let Some(i) = line[at..].iter().position(|&b| b == b'"') {
                    field.extend_from_slice(&line[at..at + i]);
                    at += i + 1;
                    column += i + 1;
                    match line.get(at) {
                        Some(b'"') => {
                            field.push(b'"');
                            at += 1;
                            column += 1;
                        }
                        Some(b',') => {
                            at += 1;
                            column += 1;
                            fields.push(std::mem::take(&mut field));
                            break;
                        }
                        _ if line.len() - at == newline_len(&line[at..]) => {
                            fields.push(field);
                            return Ok(Some(strings(fields)));
                        }
                        _ => return Err(parse_error(start_line, self.line, column - 1, true)),
                    }
                } else if at < line.len() {
                    field.extend_from_slice(&line[at..]);
                    column += line.len() - at;
                    line = self.next_line().unwrap_or_default();
                    at = 0;
                    if !line.is_empty() {
                        position_line += 1;
                        column = 1;
                    }
                } else {
                    return Err(parse_error(start_line, position_line, column, true));
                }
            }
        }
        Ok(Some(strings(fields)))
    }
}

/// Fields as strings; bytes that are not UTF-8 cannot occur, the input being a `str`.
fn strings(fields: Vec<Vec<u8>>) -> Vec<String> {
    fields.into_iter().map(|field| String::from_utf8_lossy(&field).into_owned()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_like_go() {
        let records = read_all("a,b,c\n\n\"x,y\",\"say \"\"hi\"\"\"\r\n\"multi\nline\",z").unwrap();
        assert_eq!(records, [vec!["a", "b", "c"], vec!["x,y", "say \"hi\""], vec!["multi\nline", "z"]]);
        assert_eq!(read_all("a,b\"c\n").unwrap_err(), "parse error on line 1, column 4: bare \" in non-quoted-field");
        assert_eq!(
            read_all("a,\"b\"c\n").unwrap_err(),
            "parse error on line 1, column 5: extraneous or missing \" in quoted-field"
        );
        assert_eq!(
            read_all("a,\"b\n").unwrap_err(),
            "parse error on line 1, column 6: extraneous or missing \" in quoted-field"
        );
    }
}
