//! YAML (stub).
use serde_json::Value;

use super::guard::Outside;
use super::{Backend, Parse, Container, Created, Edit, Format, FormatError, Op};

pub(super) struct Doc<'t> {
    text: &'t str,
}

impl<'t> Parse<'t> for Doc<'t> {
    fn parse(_: Format, text: &'t str, _: Container<'t>) -> Result<Self, FormatError> {
        Ok(Doc { text })
    }
}

impl Backend for Doc<'_> {
    fn entries(&self) -> Vec<(String, Value)> {
        Vec::new()
    }
    fn outside(&self) -> Outside {
        Vec::new()
    }
    fn upsert(&self, _: &str, _: &Value) -> Result<Edit, FormatError> {
        Ok(Edit::unchanged(self.text))
    }
    fn remove(&self, _: &str, _: &Created) -> Result<Edit, FormatError> {
        Ok(Edit::unchanged(self.text))
    }
    fn apply(&self, _: &[Op<'_>]) -> Result<Edit, FormatError> {
        Ok(Edit::unchanged(self.text))
    }
}
