//! Places (where a value is held) and origins (where a value comes from).

use std::collections::{BTreeSet, HashMap};

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Origin {
    Fresh(u32),
    Param(u16),
    /// A field of a parameter's object (`builder.orderId`, `request.getKey()`).
    ParamField(u16, String),
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

pub(super) fn join(a: &Env, b: &Env) -> Env {
    let mut out = a.clone();
    for (k, v) in b {
        union(out.entry(k.clone()).or_default(), v);
    }
    out
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
