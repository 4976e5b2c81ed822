//! What each kind of row is called in listings (`retrylint catalogue`).

use super::compiled::Row;
use super::schema::*;

/// Up to three distinct names, simple names for qualified ones, then `…`.
fn few(names: &[String]) -> String {
    let simple = |n: &String| -> String {
        let segs: Vec<&str> = n.split('.').collect();
        // `Outer.Inner` stays whole; a package does not.
        let first_type = segs
            .iter()
            .position(|s| s.chars().next().is_some_and(char::is_uppercase))
            .unwrap_or(segs.len().saturating_sub(1));
        segs[first_type..].join(".")
    };
    let mut all: Vec<String> = Vec::new();
    for n in names.iter().map(simple) {
        if !all.contains(&n) {
            all.push(n);
        }
    }
    let more = all.len() > 3;
    all.truncate(3);
    if more {
        all.push("…".into());
    }
    all.join(", ")
}

macro_rules! row {
    ($ty:ty, |$r:ident| $label:expr) => {
        impl Row for $ty {
            fn id(&self) -> &str {
                &self.id
            }
            fn label(&self) -> String {
                let $r = self;
                $label
            }
        }
    };
}

row!(AnnotationRegion, |r| format!(
    "{}: @{}",
    r.label,
    few(&r.annotations)
));
row!(AspectRow, |r| format!(
    "aspect around a retry (order {}): @{}",
    r.order,
    few(&r.annotations)
));
row!(CallbackRegion, |r| format!(
    "{}: {} on {}",
    r.label,
    few(&r.methods),
    few(&r.receiver_types)
));
row!(PipelineRegion, |r| format!(
    "{}: {} on {}",
    r.label,
    few(&r.operators),
    few(&r.types)
));
row!(ImplementationRegion, |r| {
    let on = if r.supertypes.is_empty() {
        format!("@{}", few(&r.supertype_annotations))
    } else {
        few(&r.supertypes)
    };
    let taking = if r.param_types.is_empty() {
        String::new()
    } else {
        format!(" taking {}", few(&r.param_types))
    };
    format!("{}: {} of {on}{taking}", r.label, few(&r.methods))
});
row!(InterceptorRegion, |r| {
    let how = if let Some(b) = &r.beans {
        format!("beans configuring @{}", few(&b.client_annotations))
    } else {
        format!("{} on {}", few(&r.register), few(&r.receiver_types))
    };
    format!(
        "{}: {} of {}, registered by {how}",
        r.label,
        few(&r.methods),
        few(&r.types)
    )
});
row!(RecursionRegion, |r| format!(
    "{}: a method calling itself from a catch or from {}",
    r.label,
    few(&r.failure_handlers)
));
row!(StepRegion, |r| format!("{}: {}", r.label, few(&r.methods)));
row!(Endpoint, |r| format!(
    "{}: {} on {}",
    r.label,
    few(&r.paths),
    r.hosts.join(", ")
));
row!(ClientBase, |r| format!(
    "declarative client base URL: {} of @{}",
    few(&r.attributes),
    few(&r.annotations)
));
row!(AckLoop, |r| format!(
    "{}: a loop whose body calls {} on {} for its item",
    r.label,
    few(&r.methods),
    few(&r.classes)
));
row!(FunctionBeanRegion, |r| format!(
    "{}: @{} methods returning {}",
    r.label,
    few(&r.annotations),
    few(&r.types)
));
row!(Observability, |r| format!(
    "observability: {}",
    few(&r.types)
));
row!(Deferred, |r| format!(
    "fails after return: {}",
    few(&r.types)
));
row!(ItemFailures, |r| format!(
    "item failures read when enabled by {}: {}",
    few(&r.enabled_by),
    few(&r.types)
));
row!(Redelivery, |r| format!(
    "redelivers: {} on {}",
    few(&r.methods),
    few(&r.types)
));
row!(Rethrow, |r| format!(
    "rethrows: {} on {}",
    few(&r.methods),
    r.class
));
row!(FunctionCall, |r| format!(
    "{}: {} on {}",
    r.label,
    few(&r.methods),
    few(&r.types)
));
row!(SourceRow, |r| {
    let mut methods: Vec<String> = r
        .static_methods
        .iter()
        .chain(&r.instance)
        .cloned()
        .collect();
    if r.constructor {
        methods.push("new".into());
    }
    format!(
        "{}: {} of {}",
        r.kind.as_str(),
        few(&methods),
        few(&r.classes)
    )
});
row!(ParameterSource, |r| format!(
    "{}: parameters annotated @{} with {}",
    r.kind.as_str(),
    few(&r.annotations),
    few(&r.values)
));
row!(Factory, |r| {
    let owners: Vec<String> = r.owners().cloned().collect();
    let mut gives: Vec<String> = r
        .method
        .iter()
        .zip(&r.returns)
        .map(|(m, t)| format!("{m} returns {t}"))
        .collect();
    gives.extend(r.accessors.iter().map(|(m, t)| format!("{m} returns {t}")));
    gives.extend(r.fluent.iter().map(|m| format!("{m} returns itself")));
    let more = if gives.len() > 3 { ", …" } else { "" };
    gives.truncate(3);
    format!("type: {} {}{more}", few(&owners), gives.join(", "))
});
row!(GenericMethod, |r| {
    let mut gives = Vec::new();
    if !r.params.is_empty() {
        gives.push(format!("lambda parameters {:?}", r.params));
    }
    if let Some(i) = r.returns_arg {
        gives.push(format!("returns type argument {i}"));
    }
    match (&r.returns, r.maps) {
        (Some(t), Some(f)) => gives.push(format!("returns {t} of what argument {f} returns")),
        (Some(t), None) => gives.push(format!("returns {t}{:?}", r.keeps)),
        (None, _) => {}
    }
    format!(
        "type: {}.{} gives {}",
        few(&r.classes),
        few(&r.methods),
        gives.join(", ")
    )
});
row!(Coarse, |r| {
    let kinds: Vec<&str> = r.kinds.iter().map(|k| k.as_str()).collect();
    let mut calls = r.instance.clone();
    calls.extend(r.static_methods.iter().flat_map(|s| {
        s.methods
            .iter()
            .map(|m| format!("{}.{m}", few(std::slice::from_ref(&s.class))))
    }));
    format!("not {}: {}", kinds.join(", "), few(&calls))
});
row!(StoredRead, |r| format!(
    "stored values: {} of {}",
    few(&r.methods),
    few(&r.classes)
));
row!(SameObject, |r| format!(
    "returns argument {}: {} of {}",
    r.arg + 1,
    few(&r.methods),
    few(&r.classes)
));
row!(BuilderDefault, |r| format!(
    "builders of {}: unset fields with {} get their initializer",
    few(&r.builders),
    few(&r.defaults)
));
row!(HeldFunction, |r| format!(
    "functions held in fields; beans made by {}",
    few(&r.annotations)
));
row!(MethodNames, |r| few(&r.methods));
row!(CounterRow, |r| {
    if r.updates.is_empty() {
        few(&r.methods)
    } else {
        format!("{} by {}", few(&r.updates), few(&r.increments))
    }
});
row!(SinkMethod, |r| {
    let on = if r.classes.is_empty() {
        String::new()
    } else {
        format!(" on {}", few(&r.classes))
    };
    let arity = r
        .arity
        .map(|n| format!(" ({n} arguments)"))
        .unwrap_or_default();
    format!("argument {} of {}{on}{arity}", r.arg, few(&r.names))
});
row!(HeaderNames, |r| {
    let mut parts = Vec::new();
    if !r.names.is_empty() {
        parts.push(format!("key names {}", few(&r.names)));
    }
    if !r.stems.is_empty() {
        let tails = if r.tails.is_empty() {
            String::new()
        } else {
            format!(" (then {})", few(&r.tails))
        };
        parts.push(format!("key names ending {}{tails}", few(&r.stems)));
    }
    if !r.suffixes.is_empty() {
        parts.push(format!("key names ending {}", few(&r.suffixes)));
    }
    parts.join("; ")
});
row!(HeaderSetter, |r| {
    let what = if r.entry { "entries" } else { "headers" };
    format!("{what} set with {}", few(&r.methods))
});
row!(KeyContainer, |r| {
    let holds = match r.holds {
        Holds::Headers => "headers",
        Holds::BodyFields => "body fields",
        Holds::NoKeys => "no keys",
        Holds::Maps => "headers or body fields, by their names",
    };
    format!("entries of {} are {holds}", few(&r.classes))
});
row!(HttpCall, |r| {
    let mut names = r.reads.clone();
    names.extend(r.writes.iter().cloned());
    names.extend(r.by_argument.iter().cloned());
    format!(
        "requests sent with {} on {}",
        few(&names),
        few(&r.receiver_types)
    )
});
row!(HttpClientMethod, |r| {
    let mut names = r.reads.clone();
    names.extend(r.writes.iter().cloned());
    names.extend(r.by_attribute.iter().cloned());
    format!("client methods annotated @{}", few(&names))
});
row!(Annotations, |r| format!(
    "parameters annotated @{}",
    few(&r.annotations)
));
row!(SinkConstructor, |r| format!(
    "argument {} of new {}",
    r.arg,
    few(&r.classes)
));
row!(SinkParameter, |r| {
    let mut parts = Vec::new();
    if !r.contains.is_empty() {
        parts.push(format!("parameter names containing {}", few(&r.contains)));
    }
    if !r.equals.is_empty() {
        parts.push(format!("parameter names equal to {}", few(&r.equals)));
    }
    parts.join("; ")
});
row!(Store, |r| format!(
    "{} then {}",
    few(&r.writes),
    few(&r.reads)
));
row!(ComputeOnce, |r| format!(
    "argument {} of {}",
    r.arg,
    few(&r.methods)
));
row!(Persist, |r| format!(
    "calls starting with {}",
    few(&r.prefixes)
));
row!(Outbox, |r| format!(
    "rows of {} in {} retried by {}",
    few(&r.entities),
    few(&r.transactions),
    few(&r.regions)
));
row!(Sweep, |r| format!(
    "queries of {} and {} marked by {}",
    few(&r.finders),
    few(&r.queries),
    few(&r.setters)
));
row!(ClusterLock, |r| {
    let parts = [
        ("@", &r.annotations),
        ("", &r.methods),
        ("", &r.wrappers),
        ("local ", &r.local_types),
        ("claims ", &r.claims),
        ("of ", &r.classes),
        ("clustered ", &r.settings),
        ("granted ", &r.granted_events),
        ("sql ", &r.sql),
        ("in a transaction, sql ", &r.row_lock_sql),
        ("in a transaction, @", &r.lock_annotations),
        ("lock modes ", &r.lock_modes),
    ];
    let mut out: Vec<String> = parts
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(p, v)| format!("{p}{}", few(v)))
        .collect();
    out.extend(r.sql_all.iter().map(|all| format!("sql all of {all:?}")));
    out.join("; ")
});
row!(SideEffect, |r| {
    let mut methods: Vec<String> = r
        .static_methods
        .iter()
        .chain(&r.instance)
        .cloned()
        .collect();
    methods.dedup();
    let requests = if r.requests.is_empty() {
        String::new()
    } else {
        format!(" with {}", few(&r.requests))
    };
    format!(
        "{}: {} on {}{requests}",
        r.label,
        few(&methods),
        few(&r.classes)
    )
});
row!(KeyCarrier, |r| format!(
    "key-carrying parameters of type {}",
    few(&r.types)
));
