//! Memory snippets as managed blocks in an instructions file (`AGENTS.md`, `CLAUDE.md`,
//! `GEMINI.md`):
//!
//! ```text
//! <!-- dotpack:begin NAME -->
//! the snippet
//! <!-- dotpack:end NAME -->
//! ```
//!
//! A block is edited in place and every other byte stays: the file's line endings are kept (a
//! CRLF file gets a CRLF block), and what was added before a new block to separate it (`lead`,
//! recorded in its claim) is taken away with it, so adding then removing gives the file back
//! byte for byte.

fn begin(name: &str) -> String {
    format!("<!-- dotpack:begin {name} -->")
}

fn end(name: &str) -> String {
    format!("<!-- dotpack:end {name} -->")
}

/// The line ending of `text`: CRLF when its first line ends so, else LF.
fn eol_of(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

/// `snippet` with `eol` line endings and a final line ending: the bytes between the markers.
pub fn block_body(snippet: &str, file_text: &str) -> String {
    let eol = eol_of(file_text);
    let mut out = String::with_capacity(snippet.len() + 8);
    for line in snippet.split_inclusive('\n') {
        let bare = line.trim_end_matches('\n').trim_end_matches('\r');
        out.push_str(bare);
        out.push_str(eol);
    }
    out
}

/// Where the block `name` is: (start of its begin line, end of its begin line, start of its end
/// line, end of its end line including the line ending).
fn find(text: &str, name: &str) -> Option<(usize, usize, usize, usize)> {
    let begin = begin(name);
    let end = end(name);
    let mut offset = 0;
    let mut open: Option<(usize, usize)> = None;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches('\n').trim_end_matches('\r');
        let next = offset + line.len();
        match open {
            None if bare == begin => open = Some((offset, next)),
            Some((b0, b1)) if bare == end => return Some((b0, b1, offset, next)),
            _ => {}
        }
        offset = next;
    }
    None
}

/// The bytes between the markers of block `name`, if the file holds it.
pub fn block_content<'t>(text: &'t str, name: &str) -> Option<&'t str> {
    find(text, name).map(|(_, b1, e0, _)| &text[b1..e0])
}

/// `text` with block `name` holding `body` (see [`block_body`]): replaced in place when the file
/// holds it, else appended. Returns the new text and, for an appended block, the separator put
/// before it (to record and take away on removal).
pub fn upsert_block(text: &str, name: &str, body: &str) -> (String, Option<String>) {
    if let Some((_, b1, e0, _)) = find(text, name) {
        let mut out = String::with_capacity(text.len() + body.len());
        out.push_str(&text[..b1]);
        out.push_str(body);
        out.push_str(&text[e0..]);
        return (out, None);
    }
    let eol = eol_of(text);
    let lead = if text.is_empty() {
        String::new()
    } else if text.ends_with('\n') {
        eol.to_string()
    } else {
        format!("{eol}{eol}")
    };
    let mut out = String::with_capacity(text.len() + body.len() + 80);
    out.push_str(text);
    out.push_str(&lead);
    out.push_str(&begin(name));
    out.push_str(eol);
    out.push_str(body);
    out.push_str(&end(name));
    out.push_str(eol);
    (out, Some(lead))
}

/// `text` without block `name` and the `lead` dotpack put before it; `None` when the file does
/// not hold the block.
pub fn remove_block(text: &str, name: &str, lead: &str) -> Option<String> {
    let (b0, _, _, e1) = find(text, name)?;
    let before = &text[..b0];
    let before = before.strip_suffix(lead).unwrap_or(before);
    let mut out = String::with_capacity(text.len());
    out.push_str(before);
    out.push_str(&text[e1..]);
    Some(out)
}
