//! The locals in scope at a point of a body, as javac scopes them: a local declared in a block
//! (an `if` branch, a loop body, a lambda, a `catch`) is gone when the block ends, and the name
//! means again what it meant before it (a field, an outer local).

use std::collections::HashMap;

/// The declared types of the locals in scope, with an undo log of the declarations made since
/// each open block.
#[derive(Default)]
pub struct LocalTypes {
    types: HashMap<String, String>,
    /// Each declaration in order: the name and the type it hid, if it hid a local.
    undo: Vec<(String, Option<String>)>,
}

impl LocalTypes {
    /// The locals in scope by name, with their types as written.
    pub fn map(&self) -> &HashMap<String, String> {
        &self.types
    }

    pub fn contains(&self, name: &str) -> bool {
        self.types.contains_key(name)
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.types.get(name).map(String::as_str)
    }

    /// Declares `name` of type `ty` until the block open since the last [`Self::mark`] ends.
    pub fn declare(&mut self, name: &str, ty: &str) {
        let hidden = self.types.insert(name.to_string(), ty.to_string());
        self.undo.push((name.to_string(), hidden));
    }

    /// Where a block starts: what [`Self::unwind`] returns to when it ends.
    pub fn mark(&self) -> usize {
        self.undo.len()
    }

    /// A block ends: its declarations go, and what they hid is back.
    pub fn unwind(&mut self, mark: usize) {
        while self.undo.len() > mark {
            let Some((name, hidden)) = self.undo.pop() else {
                break;
            };
            match hidden {
                Some(ty) => self.types.insert(name, ty),
                None => self.types.remove(&name),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_s_locals_go_when_it_ends_and_what_they_hid_comes_back() {
        let mut l = LocalTypes::default();
        l.declare("id", "String");
        let outer = l.mark();
        l.declare("keys", "OrderKeys");
        let inner = l.mark();
        l.declare("id", "Long");
        assert_eq!(l.get("id"), Some("Long"));
        l.unwind(inner);
        assert_eq!(l.get("id"), Some("String"));
        assert_eq!(l.get("keys"), Some("OrderKeys"));
        l.unwind(outer);
        assert!(!l.contains("keys"));
        assert_eq!(l.get("id"), Some("String"));
    }
}
