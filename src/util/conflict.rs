//! Git merge conflict markers in a text file: whether a file has them, its two sides, and a
//! line-wise union of the sides. Every file dotpack reads (the manifest, the lock, host files)
//! can be left with markers by a merge of two branches that each added something; recognising
//! them turns "invalid syntax" into "a merge is unfinished" and lets `dotpack merge` settle it.

/// One conflicted region: the lines of each side, and of the base when the file was written
/// with `merge.conflictStyle = diff3` (or `zdiff3`).
#[derive(Debug, Default)]
struct Hunk {
    ours: Vec<String>,
    base: Option<Vec<String>>,
    theirs: Vec<String>,
}

/// A text cut at its conflict markers: the common lines and the hunks, in file order.
#[derive(Debug)]
enum Piece {
    Common(String),
    Hunk(Hunk),
}

/// Whether `text` has a line that opens a conflict (`<<<<<<< `): the cheap test every reader
/// makes before it says why a file does not parse.
pub fn has_markers(text: &str) -> bool {
    text.contains("<<<<<<<")
        && text
            .split('\n')
            .any(|line| is_marker(line.trim_end_matches('\r'), "<<<<<<<"))
}

/// Whether `line` is the marker `marker` as git writes it: the seven characters alone or
/// followed by a space and a label.
fn is_marker(line: &str, marker: &str) -> bool {
    line.strip_prefix(marker)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
}

/// The byte offset of the first conflict marker, for a diagnostic.
pub fn first_marker(text: &str) -> Option<usize> {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if is_marker(line.trim_end_matches(['\n', '\r']), "<<<<<<<") {
            return Some(at);
        }
        at += line.len();
    }
    None
}

/// Cuts `text` into common lines and hunks; `None` when it has no markers or they do not pair
/// up (a marker out of order, or a hunk left open at the end).
fn pieces(text: &str) -> Option<Vec<Piece>> {
    #[derive(PartialEq)]
    enum At {
        Common,
        Ours,
        Base,
        Theirs,
    }
    let mut at = At::Common;
    let mut pieces = Vec::new();
    let mut hunk = Hunk::default();
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        let marker = |m: &str| is_marker(bare, m);
        if marker("<<<<<<<") && at == At::Common {
            at = At::Ours;
        } else if marker("|||||||") && at == At::Ours {
            hunk.base = Some(Vec::new());
            at = At::Base;
        } else if marker("=======") && (at == At::Ours || at == At::Base) {
            at = At::Theirs;
        } else if marker(">>>>>>>") && at == At::Theirs {
            pieces.push(Piece::Hunk(std::mem::take(&mut hunk)));
            at = At::Common;
        } else {
            match at {
                At::Common => pieces.push(Piece::Common(line.to_string())),
                At::Ours => hunk.ours.push(line.to_string()),
                At::Base => hunk
                    .base
                    .get_or_insert_with(Vec::new)
                    .push(line.to_string()),
                At::Theirs => hunk.theirs.push(line.to_string()),
            }
        }
    }
    let hunks = pieces
        .iter()
        .filter(|p| matches!(p, Piece::Hunk(_)))
        .count();
    (hunks > 0 && at == At::Common).then_some(pieces)
}

/// The two sides of a conflicted text: what the file held on this branch and on the branch
/// merged in, each with the common lines.
#[derive(Debug, PartialEq, Eq)]
pub struct Sides {
    pub ours: String,
    pub theirs: String,
    /// How many conflicted regions the text has.
    pub conflicts: usize,
}

/// The two sides of `text`; `None` when it has no markers or they do not pair up.
pub fn sides(text: &str) -> Option<Sides> {
    let pieces = pieces(text)?;
    let mut sides = Sides {
        ours: String::new(),
        theirs: String::new(),
        conflicts: 0,
    };
    for piece in &pieces {
        match piece {
            Piece::Common(line) => {
                sides.ours.push_str(line);
                sides.theirs.push_str(line);
            }
            Piece::Hunk(hunk) => {
                sides.conflicts += 1;
                sides.ours.extend(hunk.ours.iter().map(String::as_str));
                sides.theirs.extend(hunk.theirs.iter().map(String::as_str));
            }
        }
    }
    Some(sides)
}

/// `text` with each hunk replaced by the lines of both sides, ours first, each line once
/// (a line both sides added is kept once); with a base section, a line of the base that either
/// side took out stays out. This is what git's `merge=union` does, and what two branches that
/// each added a dependency want; whether the result still means something is the caller's
/// question. `None` when the markers do not pair up.
pub fn union(text: &str) -> Option<String> {
    let pieces = pieces(text)?;
    let mut out = String::with_capacity(text.len());
    for piece in pieces {
        match piece {
            Piece::Common(line) => out.push_str(&line),
            Piece::Hunk(hunk) => {
                let bare = |l: &String| l.trim_end_matches(['\n', '\r']).to_string();
                let base: Vec<String> = hunk.base.iter().flatten().map(bare).collect();
                let ours: Vec<String> = hunk.ours.iter().map(bare).collect();
                let theirs: Vec<String> = hunk.theirs.iter().map(bare).collect();
                let mut kept: Vec<String> = Vec::new();
                for (line, key) in hunk.ours.iter().zip(&ours) {
                    let removed_by_theirs = base.contains(key) && !theirs.contains(key);
                    if !removed_by_theirs && !kept.contains(key) {
                        kept.push(key.clone());
                        out.push_str(line);
                    }
                }
                for (line, key) in hunk.theirs.iter().zip(&theirs) {
                    let removed_by_ours = base.contains(key) && !ours.contains(key);
                    if !removed_by_ours && !kept.contains(key) {
                        kept.push(key.clone());
                        out.push_str(line);
                    }
                }
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_ADDS: &str = "[dependencies]\nalpha = \"^1\"\n<<<<<<< HEAD\nfigma = \"^0.3\"\n=======\ntime = \"^0.2\"\n>>>>>>> other\n\n[project]\n";

    #[test]
    fn markers_are_found_only_at_the_start_of_a_line() {
        assert!(has_markers(TWO_ADDS));
        assert!(!has_markers("a = \"<<<<<<< not a marker\"\n"));
        assert_eq!(first_marker(TWO_ADDS), TWO_ADDS.find("<<<<<<<"));
    }

    #[test]
    fn sides_hold_the_common_lines_and_their_own() {
        let s = sides(TWO_ADDS).unwrap();
        assert_eq!(
            s.ours,
            "[dependencies]\nalpha = \"^1\"\nfigma = \"^0.3\"\n\n[project]\n"
        );
        assert_eq!(
            s.theirs,
            "[dependencies]\nalpha = \"^1\"\ntime = \"^0.2\"\n\n[project]\n"
        );
        assert_eq!(s.conflicts, 1);
    }

    #[test]
    fn union_keeps_both_additions_once() {
        assert_eq!(
            union(TWO_ADDS).unwrap(),
            "[dependencies]\nalpha = \"^1\"\nfigma = \"^0.3\"\ntime = \"^0.2\"\n\n[project]\n"
        );
        let same = "<<<<<<< HEAD\na = 1\nb = 2\n=======\na = 1\nc = 3\n>>>>>>> x\n";
        assert_eq!(union(same).unwrap(), "a = 1\nb = 2\nc = 3\n");
    }

    #[test]
    fn union_with_a_base_leaves_out_what_one_side_removed() {
        let text = "<<<<<<< HEAD\ntime = 1\n||||||| base\nfigma = 1\n=======\nfigma = 1\nzed = 1\n>>>>>>> x\n";
        assert_eq!(union(text).unwrap(), "time = 1\nzed = 1\n");
    }

    #[test]
    fn crlf_is_kept_and_an_open_hunk_is_not_a_conflict() {
        let text = "<<<<<<< HEAD\r\na = 1\r\n=======\r\nb = 2\r\n>>>>>>> x\r\n";
        assert_eq!(union(text).unwrap(), "a = 1\r\nb = 2\r\n");
        let open = "<<<<<<< HEAD\na = 1\n=======\nb = 2\n";
        assert!(sides(open).is_none() && union(open).is_none());
    }
}
