//! A file's text, shared instead of copied: a host file can be megabytes (`~/.claude.json`), and
//! its bytes go from the read through the plan into the transaction, where each step used to
//! keep a copy of its own. Its sha256 (the name of its snapshot) is computed once, and for a
//! large text ahead of time on a spare core ([`Text::digest_ahead`]).

use std::ops::Deref;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use sha2::{Digest, Sha256};

/// Text that clones by reference. Reads as `&str`; compares and prints as the text it holds.
#[derive(Clone, Default)]
pub struct Text(Arc<Shared>);

#[derive(Default)]
struct Shared {
    text: String,
    digest: OnceLock<Digested>,
    /// Whether [`Text::digest_ahead`] started a thread for it.
    ahead: AtomicBool,
}

/// A text's sha256, and for a large text the hash's state after each [`STEP`] bytes: an edited
/// copy of the text hashes only from the last of those before its first changed byte.
struct Digested {
    sum: [u8; 32],
    /// `marks[k]` has read the first `(k + 1) * STEP` bytes.
    marks: Vec<Sha256>,
}

/// Below this size a text is hashed when its digest is asked for: a thread costs more.
const AHEAD_FROM: usize = 256 * 1024;

/// How far apart the kept states of a large text's hash are (a multiple of sha256's 64-byte
/// block).
const STEP: usize = 64 * 1024;

impl Text {
    pub fn as_str(&self) -> &str {
        self.0.text.as_str()
    }

    /// The sha256 of the text's bytes, computed on the first call (or by [`Text::digest_ahead`]:
    /// a call while that runs waits for its result).
    pub fn digest(&self) -> [u8; 32] {
        self.digested(None).sum
    }

    /// Starts computing [`Text::digest`] on a thread of its own when the text is large, so a
    /// transaction that snapshots it later finds the hash ready: hashing megabytes is the
    /// largest part of writing a large host file. `edited_from` is the text this one was made
    /// from by an edit: the hash of the bytes they share is taken from its digest. Small texts
    /// are hashed when asked.
    pub fn digest_ahead(&self, edited_from: Option<&Text>) {
        if self.0.text.len() < AHEAD_FROM
            || self.0.digest.get().is_some()
            || self.0.ahead.swap(true, Ordering::Relaxed)
        {
            return;
        }
        let (text, base) = (self.clone(), edited_from.cloned());
        // Detached: nothing waits for it but `digest`, and a failed spawn only means the hash is
        // computed when asked.
        let _ = std::thread::Builder::new().spawn(move || text.digested(base.as_ref()).sum);
    }

    fn digested(&self, base: Option<&Text>) -> &Digested {
        self.0.digest.get_or_init(|| {
            let bytes = self.0.text.as_bytes();
            let large = bytes.len() >= AHEAD_FROM;
            // A text is never its own base: its digest would wait for itself.
            let base = base.filter(|b| large && !Arc::ptr_eq(&b.0, &self.0));
            let (mut hasher, mut marks) = match base {
                Some(base) => base.shared_prefix_state(bytes),
                None => (Sha256::new(), Vec::new()),
            };
            for chunk in bytes[marks.len() * STEP..].chunks(STEP) {
                hasher.update(chunk);
                if large && chunk.len() == STEP {
                    marks.push(hasher.clone());
                }
            }
            Digested {
                sum: hasher.finalize().into(),
                marks,
            }
        })
    }

    /// The state of this text's hash after the longest run of whole [`STEP`]s that `other`
    /// begins with too, and the states before it.
    fn shared_prefix_state(&self, other: &[u8]) -> (Sha256, Vec<Sha256>) {
        let digested = self.digested(None);
        let steps = common_prefix(self.0.text.as_bytes(), other) / STEP;
        let marks = digested.marks[..steps.min(digested.marks.len())].to_vec();
        let hasher = marks.last().cloned().unwrap_or_default();
        (hasher, marks)
    }
}

/// How many bytes `a` and `b` begin with in common.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const CHUNK: usize = 4096;
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + CHUNK <= n && a[i..i + CHUNK] == b[i..i + CHUNK] {
        i += CHUNK;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

impl PartialEq for Text {
    /// A clone equals its original without comparing megabytes.
    fn eq(&self, other: &Text) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.as_str() == other.as_str()
    }
}

impl Eq for Text {}

impl PartialOrd for Text {
    fn partial_cmp(&self, other: &Text) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Text {
    fn cmp(&self, other: &Text) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl std::hash::Hash for Text {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl From<String> for Text {
    /// Takes the string without copying it.
    fn from(text: String) -> Text {
        Text(Arc::new(Shared {
            text,
            ..Shared::default()
        }))
    }
}

impl From<&str> for Text {
    fn from(text: &str) -> Text {
        Text::from(text.to_owned())
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Text {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clone_shares_the_bytes_and_compares_as_text() {
        let text = Text::from(String::from("{\"mcpServers\": {}}"));
        let copy = text.clone();
        assert!(std::ptr::eq(text.as_str(), copy.as_str()));
        assert_eq!(copy, "{\"mcpServers\": {}}");
        assert_eq!(text, Text::from("{\"mcpServers\": {}}"));
        assert_eq!(format!("{text:?}"), "\"{\\\"mcpServers\\\": {}}\"");
    }

    #[test]
    fn the_digest_is_the_sha256_of_the_text_whether_computed_ahead_or_when_asked() {
        // sha256("abc"), from FIPS 180-2.
        let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        let hex = |d: [u8; 32]| d.iter().map(|b| format!("{b:02x}")).collect::<String>();
        assert_eq!(hex(Text::from("abc").digest()), abc);
        let large = Text::from("x".repeat(AHEAD_FROM + 1));
        large.digest_ahead(None);
        let expected: [u8; 32] = Sha256::digest(large.as_bytes()).into();
        assert_eq!(large.clone().digest(), expected);
    }

    #[test]
    fn an_edited_text_hashed_from_its_original_has_its_own_sha256() {
        let original: String = (0..AHEAD_FROM * 3)
            .map(|i| char::from(b'a' + (i % 23) as u8))
            .collect();
        let edits = [
            (0, 0, "new"),
            (STEP - 1, STEP + 1, ""),
            (STEP, STEP, "x"),
            (AHEAD_FROM + 17, AHEAD_FROM + 400, "an entry"),
            (original.len() - 3, original.len(), "}\n"),
            (original.len(), original.len(), "more"),
            (STEP * 5, original.len(), ""),
            (0, original.len() - AHEAD_FROM, ""),
        ];
        let base = Text::from(original.clone());
        for (from, to, insert) in edits {
            let edited = format!("{}{insert}{}", &original[..from], &original[to..]);
            let expected: [u8; 32] = Sha256::digest(edited.as_bytes()).into();
            let text = Text::from(edited);
            assert_eq!(
                text.digested(Some(&base)).sum,
                expected,
                "edit at {from}..{to}"
            );
        }
        let same = Text::from(original.clone());
        assert_eq!(same.digested(Some(&base)).sum, base.digest());
        let own: [u8; 32] = Sha256::digest(original.as_bytes()).into();
        let fresh = Text::from(original.clone());
        assert_eq!(fresh.digested(Some(&fresh.clone())).sum, own);
        assert_eq!(common_prefix(b"abcd", b"abxd"), 2);
        assert_eq!(common_prefix(b"ab", b"abc"), 2);
    }
}
