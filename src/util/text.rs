//! A file's text, shared instead of copied: a host file can be megabytes (`~/.claude.json`), and
//! its bytes go from the read through the plan into the transaction, where each step used to
//! keep a copy of its own.

use std::ops::Deref;
use std::sync::Arc;

/// Text that clones by reference. Reads as `&str`; compares and prints as the text it holds.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Text(Arc<String>);

impl Text {
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

impl Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        self.0.as_str()
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        self.0.as_str()
    }
}

impl From<String> for Text {
    /// Takes the string without copying it.
    fn from(text: String) -> Text {
        Text(Arc::new(text))
    }
}

impl From<&str> for Text {
    fn from(text: &str) -> Text {
        Text(Arc::new(text.to_owned()))
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
}
