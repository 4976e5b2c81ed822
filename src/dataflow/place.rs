//! Places (where a value is held) and origins (where a value comes from).

use std::collections::{BTreeSet, HashMap};

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Origin {
    Fresh(u32),
    Param(u16),
    /// A part of a parameter's object (`builder.orderId`, `request.getKey()`,
    /// `task.getInputData().get("idempotencyKey")`).
    ParamField(u16, FieldPath),
    Field(String),
    /// The value went through a key sink: a request that carries an idempotency key.
    Keyed,
    /// The value says whether this instance holds a cluster-wide lock.
    Lock,
    /// A header container holding a key (an index into the method's containers).
    Container(u32),
}

pub(super) type Taint = BTreeSet<Origin>;
pub(super) type Env = HashMap<Place, Taint>;

pub(super) fn union(a: &mut Taint, b: &Taint) {
    for o in b {
        if !a.contains(o) {
            a.insert(o.clone());
        }
    }
}

/// The join of two environments (a union per place), made in `a`, which the caller gives up:
/// no copy of it is made.
pub(super) fn join_into(mut a: Env, b: &Env) -> Env {
    for (k, v) in b {
        match a.get_mut(k) {
            Some(t) => union(t, v),
            None => {
                a.insert(k.clone(), v.clone());
            }
        }
    }
    a
}

/// `getKey` → `key`, `isActive` → `active`.
pub(super) fn property_of(method: &str, prefix: &str) -> Option<String> {
    let rest = method.strip_prefix(prefix)?;
    let mut cs = rest.chars();
    let first = cs.next()?;
    if !first.is_uppercase() {
        return None;
    }
    Some(first.to_lowercase().chain(cs).collect())
}

/// Where a value is held while a method runs: what the environment maps to origins.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Place {
    /// A local variable or parameter.
    Local(String),
    /// A field of `this`.
    This(String),
    /// A property of the object at a place (`order.getKey()`, `order.key`, a record component).
    Prop(Box<Place>, String),
    /// A value stored under a literal key in the object at a place (`ctx.setAttribute("k", v)`):
    /// a store that outlives the attempt wherever the object does.
    Entry(Box<Place>, String),
    /// An entry of a map under a literal or constant key (`payload.put("sentAt", now)`): a part
    /// of the map, as durable as the map itself.
    Key(Box<Place>, String),
}

impl Place {
    pub(super) fn local(n: &str) -> Place {
        Place::Local(n.to_string())
    }

    pub(super) fn this(n: &str) -> Place {
        Place::This(n.to_string())
    }

    pub(super) fn prop(owner: Place, p: &str) -> Place {
        Place::Prop(Box::new(owner), p.to_string())
    }

    pub(super) fn entry(owner: Place, key: &str) -> Place {
        Place::Entry(Box::new(owner), key.to_string())
    }

    pub(super) fn key(owner: Place, key: &str) -> Place {
        Place::Key(Box::new(owner), key.to_string())
    }

    /// The object the place is a direct part of (`order` for `order#key` and `m["k"]`).
    pub(super) fn parent(&self) -> Option<&Place> {
        match self {
            Place::Prop(o, _) | Place::Entry(o, _) | Place::Key(o, _) => Some(o),
            Place::Local(_) | Place::This(_) => None,
        }
    }

    /// Parts between the root and the place: bounds how deep field paths go.
    pub(super) fn depth(&self) -> usize {
        let mut n = 0;
        let mut cur = self;
        while let Some(o) = cur.parent() {
            n += 1;
            cur = o;
        }
        n
    }

    /// The local or `this` field the place is rooted at.
    pub(super) fn root(&self) -> &Place {
        let mut cur = self;
        while let Some(o) = cur.parent() {
            cur = o;
        }
        cur
    }

    /// Rooted at a field of `this`: it outlives the attempt.
    pub(super) fn on_this(&self) -> bool {
        matches!(self.root(), Place::This(_))
    }

    /// A stored entry somewhere along the place.
    pub(super) fn has_entry(&self) -> bool {
        let mut cur = self;
        loop {
            match cur {
                Place::Entry(..) => return true,
                Place::Prop(o, _) | Place::Key(o, _) => cur = o,
                Place::Local(_) | Place::This(_) => return false,
            }
        }
    }

    /// The object whose property the place is, nearest the root (`order` for `order#a#b`).
    pub(super) fn prop_owner(&self) -> Option<&Place> {
        let mut found = None;
        let mut cur = self;
        loop {
            match cur {
                Place::Prop(o, _) | Place::Key(o, _) => {
                    found = Some(&**o);
                    cur = o;
                }
                Place::Entry(o, _) => cur = o,
                Place::Local(_) | Place::This(_) => return found,
            }
        }
    }

    /// A part of the object at `ancestor`, at any depth (not `ancestor` itself).
    pub(super) fn is_part_of(&self, ancestor: &Place) -> bool {
        let mut cur = self;
        while let Some(o) = cur.parent() {
            if o == ancestor {
                return true;
            }
            cur = o;
        }
        false
    }

    /// This part of the object at `from`, as a part of the same object held at `to`
    /// (`input["k"]` → `step#inputData["k"]`); `None` when it is not a part of `from`.
    pub(super) fn moved(&self, from: &Place, to: &Place) -> Option<Place> {
        let o = self.parent()?;
        let owner = if o == from {
            to.clone()
        } else {
            o.moved(from, to)?
        };
        Some(match self {
            Place::Prop(_, f) => Place::prop(owner, f),
            Place::Entry(_, k) => Place::entry(owner, k),
            Place::Key(_, k) => Place::key(owner, k),
            Place::Local(_) | Place::This(_) => return None,
        })
    }

    /// A local or `this` field: a variable, not a part of an object.
    pub(super) fn is_variable(&self) -> bool {
        matches!(self, Place::Local(_) | Place::This(_))
    }

    /// The variable's name, for labels (`n`, or `f` for `this.f`).
    pub(super) fn variable_name(&self) -> Option<&str> {
        match self {
            Place::Local(n) | Place::This(n) => Some(n),
            _ => None,
        }
    }

    pub(super) fn as_local(&self) -> Option<&str> {
        match self {
            Place::Local(n) => Some(n),
            _ => None,
        }
    }
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Local(n) => write!(f, "{n}"),
            Place::This(n) => write!(f, "this.{n}"),
            Place::Prop(o, p) => write!(f, "{o}#{p}"),
            Place::Entry(o, k) => write!(f, "{o}@{k}"),
            Place::Key(o, k) => write!(f, "{o}[{k:?}]"),
        }
    }
}

/// Parts of one parameter a summary names before it names them by their first part only.
pub const MAX_PATHS_PER_PARAM: usize = 8;

/// A part of a parameter that a summary can name: a property of it or an entry under a literal
/// key (`orderId`, `"idempotencyKey"`), or an entry under a literal key of one of its
/// properties (`inputData` then `"idempotencyKey"`: `task.getInputData().get("idempotencyKey")`),
/// since a literal key names a part of a map as a property names a part of an object (SPEC §6).
/// Anything deeper (`order.getCustomer().getId()`) stands for the part above it, which holds
/// it: a getter on a part adds no part, so the paths of a summary are few and a recursive
/// cycle's summaries converge as fast as with properties alone.
#[derive(
    Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct FieldPath {
    first: String,
    entry: Option<String>,
}

impl FieldPath {
    /// One part: a property or entry of the parameter itself.
    pub fn one(f: &str) -> FieldPath {
        FieldPath {
            first: f.to_string(),
            entry: None,
        }
    }

    /// The entry under literal key `k` of this part; this part itself when it is an entry of
    /// a part already.
    pub fn entry(&self, k: &str) -> FieldPath {
        FieldPath {
            first: self.first.clone(),
            entry: Some(self.entry.clone().unwrap_or_else(|| k.to_string())),
        }
    }

    /// The part of the parameter this path starts with.
    pub fn first(&self) -> &str {
        &self.first
    }

    /// The entry of the first part, if the path names one.
    pub fn entry_key(&self) -> Option<&str> {
        self.entry.as_deref()
    }

    /// The first part alone.
    pub fn outer(&self) -> FieldPath {
        FieldPath::one(&self.first)
    }
}

impl std::fmt::Display for FieldPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.entry {
            Some(k) => write!(f, "{}[{k:?}]", self.first),
            None => f.write_str(&self.first),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Place;

    #[test]
    fn a_property_of_a_parameter_entity_is_owned_by_the_parameter() {
        let p = Place::prop(Place::prop(Place::local("order"), "customer"), "key");
        assert_eq!(p.prop_owner(), Some(&Place::local("order")));
        assert!(!p.on_this() && !p.has_entry() && !p.is_variable());
        assert_eq!(p.to_string(), "order#customer#key");
    }

    #[test]
    fn a_stored_entry_under_a_key_with_separators_stays_one_entry() {
        let p = Place::entry(Place::local("ctx"), "retry#key@1");
        assert!(p.has_entry());
        assert_eq!(p.prop_owner(), None);
        assert_eq!(p.root(), &Place::local("ctx"));
    }

    #[test]
    fn fields_of_this_outlive_the_attempt() {
        let p = Place::prop(Place::this("pending"), "key");
        assert!(p.on_this());
        assert_eq!(Place::this("n").variable_name(), Some("n"));
        assert_eq!(p.variable_name(), None);
    }

    #[test]
    fn a_map_entry_is_a_part_of_its_map_and_not_a_durable_store() {
        let p = Place::key(Place::local("payload"), "sentAt");
        assert!(!p.has_entry() && !p.on_this());
        assert_eq!(p.parent(), Some(&Place::local("payload")));
        assert_eq!(p.prop_owner(), Some(&Place::local("payload")));
        assert_eq!(p.to_string(), "payload[\"sentAt\"]");
        // A map held in a field of `this` outlives the attempt, with its entries.
        assert!(Place::key(Place::this("cache"), "k").on_this());
    }

    #[test]
    fn the_parts_of_a_map_move_with_it() {
        let input = Place::local("input");
        let held = Place::prop(Place::local("step"), "inputData");
        let entry = Place::key(input.clone(), "idempotencyKey");
        assert!(entry.is_part_of(&input) && !input.is_part_of(&input));
        assert_eq!(
            entry.moved(&input, &held),
            Some(Place::key(held.clone(), "idempotencyKey"))
        );
        let deep = Place::prop(entry.clone(), "value");
        assert_eq!(
            deep.moved(&input, &held).map(|p| p.to_string()),
            Some("step#inputData[\"idempotencyKey\"]#value".to_string())
        );
        assert_eq!(Place::local("other").moved(&input, &held), None);
        assert_eq!(input.moved(&input, &held), None);
    }

    #[test]
    fn a_path_below_a_parameter_names_one_entry_of_one_part() {
        let p = super::FieldPath::one("inputData").entry("idempotencyKey");
        assert_eq!(p.to_string(), "inputData[\"idempotencyKey\"]");
        assert_eq!(p.entry("other"), p);
        assert_eq!(p.outer(), super::FieldPath::one("inputData"));
    }

    #[test]
    fn field_paths_count_their_depth() {
        let p = Place::prop(Place::prop(Place::local("order"), "customer"), "key");
        assert_eq!(p.depth(), 2);
        assert_eq!(Place::local("order").depth(), 0);
        assert_ne!(
            Place::key(Place::local("m"), "k"),
            Place::prop(Place::local("m"), "k")
        );
    }
}
