//! The compiled catalogue answers the engine's questions: it is the data-flow model of the
//! frameworks and libraries its rows describe.

use super::{Catalogue, Holds, glob};
use crate::dataflow::model::{
    AnnotationUse, Check, ComputeOnce, Factories, Form, KeyField, KeySink, MethodAnnotation, Model,
    NamedKey, SideEffectMatch, Site, SourceKind, SourceMatch, StoreAccess, Tx, Verb,
};
use crate::semantic::generics::GenericReturn;
use crate::workspace::scan::{EffectWords, SideEffectWords};

/// Is one argument written as one of `wanted` (empty: no condition)?
fn args_match(wanted: &[String], call: &dyn Site) -> bool {
    wanted.is_empty()
        || (0..call.arg_count()).any(|i| call.arg_text(i).is_some_and(|t| written_as(wanted, &t)))
}

/// A read when the HTTP method named (`GET`, `HttpMethod.GET`, `RequestMethod.HEAD`) is one of
/// `reads`; any other request, also when it cannot be told.
fn verb_named(named: Option<&str>, reads: &[String]) -> Verb {
    let last = named.map(|n| {
        n.rsplit('.')
            .next()
            .unwrap_or(n)
            .trim()
            .to_ascii_uppercase()
    });
    match last {
        Some(m) if reads.iter().any(|r| r.eq_ignore_ascii_case(&m)) => Verb::Read,
        _ => Verb::Write,
    }
}

/// `t` is one of `wanted`, in full or as the last part of a dotted name.
fn written_as(wanted: &[String], t: &str) -> bool {
    wanted
        .iter()
        .any(|w| w == t || w.strip_suffix(t).is_some_and(|p| p.ends_with('.')))
}

impl Catalogue {
    /// The `[[sources.generic]]` rows for `method` on a receiver `owner_is` tells.
    fn generic_rows<'a>(
        &'a self,
        owner_is: &'a dyn Fn(&str) -> bool,
        method: &'a str,
    ) -> impl Iterator<Item = &'a super::schema::GenericMethod> {
        self.sources.generic.iter().filter(move |g| {
            g.methods.iter().any(|m| glob(m, method)) && g.classes.iter().any(|c| owner_is(c))
        })
    }
}

impl Factories for Catalogue {
    fn static_factory(&self, owner_is: &dyn Fn(&str) -> bool, method: &str) -> Option<String> {
        self.sources.factory.iter().find_map(|f| {
            f.owners()
                .filter(|o| owner_is(o))
                .find_map(|o| f.returns_for(o, method))
        })
    }

    fn instance_factory(&self, owner: &str, method: &str) -> Option<String> {
        self.sources.factory.iter().find_map(|f| {
            f.owners()
                .any(|o| o == owner)
                .then(|| f.returns_for(owner, method))
                .flatten()
        })
    }

    fn generated_builder(&self, annotated: &dyn Fn(&str) -> bool) -> bool {
        self.sources
            .builder_default
            .iter()
            .any(|r| r.builders.iter().any(|b| annotated(b)))
    }

    fn runs_function(&self, owner_is: &dyn Fn(&str) -> bool, method: &str) -> bool {
        self.regions
            .function_call
            .iter()
            .any(|r| r.methods.iter().any(|m| m == method) && r.types.iter().any(|t| owner_is(t)))
    }

    fn makes_bean(&self, annotated: &dyn Fn(&str) -> bool) -> bool {
        self.sources
            .held_function
            .iter()
            .any(|r| r.annotations.iter().any(|a| annotated(a)))
    }

    fn lambda_params(&self, owner_is: &dyn Fn(&str) -> bool, method: &str) -> Option<Vec<usize>> {
        self.generic_rows(owner_is, method)
            .find(|g| !g.params.is_empty())
            .map(|g| g.params.clone())
    }

    fn generic_return(
        &self,
        owner_is: &dyn Fn(&str) -> bool,
        method: &str,
    ) -> Option<GenericReturn> {
        self.generic_rows(owner_is, method).find_map(|g| {
            match (&g.returns_arg, &g.returns, g.maps) {
                (Some(i), _, _) => Some(GenericReturn::Arg(*i)),
                (None, Some(t), Some(f)) => Some(GenericReturn::Mapped(t.clone(), f)),
                (None, Some(t), None) => Some(GenericReturn::Type(t.clone(), g.keeps.clone())),
                (None, None, _) => None,
            }
        })
    }
}

impl Model for Catalogue {
    fn may_be_source(&self, method: &str) -> bool {
        Catalogue::may_be_source(self, method)
    }

    fn source(&self, call: &dyn Site) -> Option<SourceMatch<'_>> {
        let name = call.name();
        let rows = &self.sources.source;
        let of_class = |classes: &[String]| classes.iter().any(|k| call.receiver_is(k));
        let statics = |m: &[String]| m.iter().any(|x| glob(x, name));
        let row = match call.form() {
            Form::Static => rows.iter().find(|row| {
                statics(&row.static_methods)
                    && of_class(&row.classes)
                    && args_match(&row.args_any, call)
            }),
            Form::Instance => rows.iter().find(|row| {
                statics(&row.instance)
                    && if call.receiver_known() {
                        of_class(&row.classes)
                    } else {
                        row.any_receiver
                    }
                    && args_match(&row.args_any, call)
            }),
            Form::Bare => {
                if !rows.iter().any(|row| statics(&row.static_methods)) {
                    return None;
                }
                let owners = call.static_import_owners();
                rows.iter().find(|row| {
                    statics(&row.static_methods)
                        && owners.iter().any(|o| row.classes.iter().any(|k| k == o))
                        && args_match(&row.args_any, call)
                })
            }
            Form::New if call.arg_count() == 0 => rows
                .iter()
                .find(|row| row.constructor && of_class(&row.classes)),
            Form::New => None,
            Form::StaticRef => rows.iter().find(|row| {
                of_class(&row.classes)
                    && (statics(&row.static_methods)
                        || statics(&row.instance)
                        || (row.constructor && name == "new"))
            }),
            Form::InstanceRef => rows
                .iter()
                .find(|row| statics(&row.instance) && of_class(&row.classes)),
        }?;
        Some(SourceMatch {
            kind: row.kind,
            row: &row.id,
        })
    }

    fn parameter_source(&self, annotations: &[AnnotationUse<'_>]) -> Option<SourceMatch<'_>> {
        self.sources.parameter.iter().find_map(|row| {
            annotations
                .iter()
                .any(|a| {
                    row.annotations.iter().any(|x| (a.is)(x))
                        && a.value
                            .as_deref()
                            .is_some_and(|v| written_as(&row.values, v))
                })
                .then_some(SourceMatch {
                    kind: row.kind,
                    row: &row.id,
                })
        })
    }

    fn is_counter_increment(&self, method: &str) -> bool {
        self.sources.counter_methods.iter().any(|m| m == method)
    }

    fn counter_update(&self, method: &str) -> Option<&[String]> {
        (self.sources.counter_updates.iter())
            .find(|(updates, _)| updates.iter().any(|m| m == method))
            .map(|(_, increments)| &increments[..])
    }

    fn recursion_row(&self) -> Option<&str> {
        self.regions.recursion.first().map(|r| r.id.as_str())
    }

    fn is_failure_handler(&self, method: &str) -> bool {
        self.regions
            .recursion
            .iter()
            .any(|r| r.failure_handlers.iter().any(|h| h == method))
    }

    fn coarse_step(&self, call: &dyn Site) -> Option<&[SourceKind]> {
        let co = &self.sources.coarse;
        let name = call.name();
        let hit = match call.form() {
            Form::Instance => {
                co.instance.iter().any(|m| m == name)
                    || co
                        .instance_args
                        .iter()
                        .any(|r| r.method == name && args_match(&r.args_any, call))
            }
            Form::Static => co
                .static_methods
                .iter()
                .any(|s| s.methods.iter().any(|m| m == name) && call.receiver_is(&s.class)),
            _ => false,
        };
        hit.then_some(co.kinds.as_slice())
    }

    fn stored_read(&self, call: &dyn Site) -> bool {
        if call.form() != Form::Instance {
            return false;
        }
        let name = call.name();
        let known = call.receiver_known();
        self.sources.stored.iter().any(|row| {
            row.methods.iter().any(|m| glob(m, name))
                && !(row.outside_scan && call.receiver_in_project())
                && if known {
                    row.classes.iter().any(|k| call.receiver_inherits(k))
                } else {
                    row.any_receiver
                }
        })
    }

    fn returned_argument(&self, call: &dyn Site) -> Option<usize> {
        if call.form() != Form::Instance || !call.receiver_known() {
            return None;
        }
        let name = call.name();
        self.sources
            .same_object
            .iter()
            .find(|row| {
                row.methods.iter().any(|m| glob(m, name))
                    && row.classes.iter().any(|k| call.receiver_inherits(k))
            })
            .map(|row| row.arg)
    }

    fn key_sinks(&self, call: &dyn Site) -> Vec<KeySink<'_>> {
        if call.form() == Form::New {
            return self
                .sinks
                .constructor
                .iter()
                .filter(|row| row.classes.iter().any(|k| call.receiver_is(k)))
                .filter_map(|row| {
                    let name = match row.name_arg {
                        None => None,
                        Some(i) => Some(
                            call.arg_constant(i)
                                .filter(|n| self.is_idempotency_header(n))?,
                        ),
                    };
                    Some(KeySink {
                        arg: row.arg,
                        row: &row.id,
                        name,
                    })
                })
                .collect();
        }
        self.sinks
            .methods
            .iter()
            .filter(|row| row.names.iter().any(|m| m == call.name()))
            .filter(|row| row.arity.is_none_or(|n| n == call.arg_count()))
            .filter(|row| row.classes.is_empty() || row.classes.iter().any(|k| call.receiver_is(k)))
            .filter(|row| !row.unless_arg_is.iter().any(|k| call.arg_is(row.arg, k)))
            .map(|row| KeySink {
                arg: row.arg,
                row: &row.id,
                name: None,
            })
            .collect()
    }

    fn named_key(&self, call: &dyn Site) -> Option<NamedKey> {
        let h = &self.sinks.headers;
        let entry = has_name(&h.entry_setters, call.name());
        if !entry && !has_name(&h.setters, call.name()) {
            return None;
        }
        // `Map.of(k1, v1, k2, v2, …)`: every name position of an entry call; one otherwise.
        let pairs = if entry { call.arg_count() / 2 } else { 1 };
        let (i, name) = (0..pairs)
            .filter(|i| 2 * i + 1 < call.arg_count())
            .find_map(|i| {
                call.arg_constant(2 * i)
                    .filter(|n| self.is_idempotency_header(n))
                    .map(|n| (2 * i, n))
            })?;
        let holds = h
            .containers
            .iter()
            .find(|c| c.classes.iter().any(|k| call.receiver_is(k)))
            .map(|c| c.holds);
        let field = match holds {
            Some(Holds::NoKeys) => return None,
            Some(Holds::Headers) => KeyField::Header,
            Some(Holds::BodyFields) => KeyField::BodyField,
            // HTTP header names are written with `-`; field names are not.
            None if entry && !name.contains('-') => KeyField::BodyField,
            Some(Holds::Maps) if !name.contains('-') => KeyField::BodyField,
            None | Some(Holds::Maps) => KeyField::Header,
        };
        // An alert's key is known by its name's row (RL005 asks), other keys by the setter's.
        let row = match h.names.alert_row(&name) {
            Some(alert) => alert.to_string(),
            None => h.setter_rows.get(call.name()).cloned().unwrap_or_default(),
        };
        Some(NamedKey {
            name,
            field,
            value_arg: i + 1,
            row,
        })
    }

    fn is_key_param(&self, name: &str) -> bool {
        Catalogue::is_key_param(self, name)
    }

    fn is_key_header_param(&self, annotation: &AnnotationUse<'_>) -> bool {
        self.sinks
            .headers
            .annotations
            .iter()
            .any(|h| (annotation.is)(h))
            && annotation
                .value
                .as_deref()
                .is_some_and(|h| self.is_idempotency_header(h))
    }

    fn key_body_field(&self, annotation: &AnnotationUse<'_>) -> Option<String> {
        let (_, row) = self
            .sinks
            .headers
            .body_annotations
            .iter()
            .find(|(a, _)| (annotation.is)(a))?;
        annotation
            .value
            .as_deref()
            .is_some_and(|h| self.is_idempotency_header(h))
            .then(|| row.clone())
    }

    fn header_templates(&self, annotation_is: &dyn Fn(&str) -> bool) -> Vec<String> {
        self.sinks
            .headers
            .templated
            .iter()
            .filter(|(a, _)| annotation_is(a))
            .flat_map(|(_, t)| t.iter().cloned())
            .collect()
    }

    fn is_key_header_name(&self, name: &str) -> bool {
        self.is_idempotency_header(name)
    }

    fn is_key_carrier(&self, type_is: &dyn Fn(&str) -> bool) -> bool {
        self.side_effects.key_carriers.iter().any(|k| type_is(k))
    }

    fn http_call(&self, call: &dyn Site) -> Option<Verb> {
        let name = call.name();
        if !self.sinks.http_call_names.contains(name) {
            return None;
        }
        let has = |names: &[String]| names.iter().any(|m| m == name);
        self.sinks
            .http_calls
            .iter()
            // A builder's method chosen after other calls on it (`new Request.Builder().url(u)
            // .headers(h).get()`): the chain's root says what it builds.
            .filter(|r| {
                r.receiver_types
                    .iter()
                    .any(|t| call.receiver_is(t) || call.chain_root_is(t))
            })
            .find_map(|r| {
                if has(&r.reads) {
                    Some(Verb::Read)
                } else if has(&r.writes) {
                    Some(Verb::Write)
                } else if has(&r.by_argument) {
                    let named = call
                        .arg_constant(r.method_arg)
                        .or_else(|| call.arg_text(r.method_arg));
                    Some(verb_named(named.as_deref(), &r.read_values))
                } else {
                    None
                }
            })
    }

    fn client_method_verb(&self, annotations: &[MethodAnnotation<'_>]) -> Option<Verb> {
        let any = |names: &[String], a: &MethodAnnotation<'_>| names.iter().any(|n| (a.is)(n));
        self.sinks.http_client_methods.iter().find_map(|r| {
            annotations.iter().find_map(|a| {
                if any(&r.reads, a) {
                    Some(Verb::Read)
                } else if any(&r.writes, a) {
                    Some(Verb::Write)
                } else if any(&r.by_attribute, a) {
                    let named = match &r.attribute {
                        Some(attr) => (a.attr)(attr),
                        // `@RequestLine("GET /payments/{id}")`: the first word.
                        None => (a.attr)("value")
                            .and_then(|v| v.split_whitespace().next().map(str::to_string)),
                    };
                    // `@RequestMapping` with no method maps every method: not a read.
                    Some(verb_named(named.as_deref(), &r.read_values))
                } else {
                    None
                }
            })
        })
    }

    fn check(&self, method: &str) -> Option<Check> {
        let g = &self.guards;
        let has = |names: &[String]| names.iter().any(|m| m == method);
        if has(&g.first_attempt) {
            Some(Check::FirstAttempt)
        } else if has(&g.absence_methods) {
            Some(Check::Absent)
        } else if has(&g.presence_methods) {
            Some(Check::Present)
        } else {
            None
        }
    }

    fn is_absent_fallback(&self, method: &str) -> bool {
        self.guards.absent_fallbacks.iter().any(|m| m == method)
    }

    fn store(&self, method: &str, receiver_may_be: &dyn Fn(&str) -> bool) -> Option<StoreAccess> {
        self.guards.store.iter().find_map(|s| {
            let on_receiver = || {
                s.receiver_types.is_empty() || s.receiver_types.iter().any(|t| receiver_may_be(t))
            };
            if s.writes.iter().any(|m| m == method) && on_receiver() {
                Some(StoreAccess::Write {
                    key_arg: s.key_arg,
                    value_arg: s.value_arg,
                    property: s.property.clone(),
                })
            } else if s.reads.iter().any(|m| m == method) && on_receiver() {
                Some(StoreAccess::Read {
                    key_arg: s.key_arg,
                    property: s.property.clone(),
                })
            } else {
                None
            }
        })
    }

    fn compute_once(&self, method: &str) -> Option<ComputeOnce> {
        self.guards
            .compute_once
            .iter()
            .find(|g| g.methods.iter().any(|m| m == method))
            .map(|g| ComputeOnce {
                arg: g.arg,
                retry_state: g.retry_state,
                tests_param: g.tests_param,
                keeps_first: g.keeps_first,
            })
    }

    fn is_persist(&self, method: &str) -> bool {
        self.guards
            .persist
            .prefixes
            .iter()
            .any(|p| method.starts_with(p.as_str()))
    }

    fn is_entity_annotation(&self, is: &dyn Fn(&str) -> bool) -> bool {
        self.guards
            .outbox
            .iter()
            .any(|o| o.entities.iter().any(|e| is(e)))
    }

    fn selected_by(&self, finder: &str) -> Vec<String> {
        let mut out = Vec::new();
        for row in &self.guards.sweep {
            let Some(rest) = row
                .finders
                .iter()
                .find_map(|f| finder.strip_prefix(f.as_str()))
            else {
                continue;
            };
            let Some((_, cond)) = rest.split_once("By") else {
                continue;
            };
            let cond = cond.split("OrderBy").next().unwrap_or(cond);
            for part in split_words(cond, &["And", "Or"]) {
                out.push(crate::dataflow::property_key(part));
                // A condition keyword ends the property (`DueAtBefore`); a property may also
                // end like one (`LastLogin`), so both are kept.
                if let Some(p) = row
                    .operators
                    .iter()
                    .filter_map(|o| part.strip_suffix(o.as_str()))
                    .filter(|p| !p.is_empty())
                    .min_by_key(|p| p.len())
                {
                    out.push(crate::dataflow::property_key(p));
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }

    fn is_builder_default(&self, is: &dyn Fn(&str) -> bool) -> bool {
        self.sources
            .builder_default
            .iter()
            .any(|r| r.defaults.iter().any(|d| is(d)))
    }

    fn is_query_annotation(&self, is: &dyn Fn(&str) -> bool) -> bool {
        self.guards
            .sweep
            .iter()
            .any(|s| s.queries.iter().any(|q| is(q)))
    }

    fn set_property(&self, method: &str) -> Option<String> {
        self.guards.sweep.iter().find_map(|s| {
            s.setters.iter().find_map(|p| {
                method
                    .strip_prefix(p.as_str())
                    .filter(|r| r.starts_with(|c: char| c.is_ascii_uppercase()))
                    .map(crate::dataflow::property_key)
            })
        })
    }

    fn transaction(&self, is: &dyn Fn(&str) -> bool, propagation: Option<&str>) -> Option<Tx> {
        let row = self
            .guards
            .outbox
            .iter()
            .find(|o| o.transactions.iter().any(|t| is(t)))?;
        let has = |list: &[String]| propagation.is_some_and(|p| list.iter().any(|x| x == p));
        Some(Tx {
            inside: !has(&row.without),
            apart: has(&row.separate),
        })
    }

    fn side_effect(&self, call: &dyn Site) -> Option<SideEffectMatch<'_>> {
        let name = call.name();
        let has = |names: &[String]| names.iter().any(|m| m == name);
        let of_class =
            |classes: &[String], is: &dyn Fn(&str) -> bool| classes.iter().any(|k| is(k));
        let row = self.side_effects.side_effect.iter().find(|row| {
            let form_ok = match call.form() {
                Form::Static => {
                    has(&row.static_methods) && of_class(&row.classes, &|k| call.receiver_is(k))
                }
                Form::Instance if !has(&row.instance) => false,
                // `client.charges().create(…)`, `client.v1().charges().create(…)` (`v1()` typed
                // by a factory): an accessor called on the client itself, not on another
                // service (`client.applicationFees().refunds()` is not `client.refunds()`).
                Form::Instance if !row.services.is_empty() => {
                    call.receiver_call()
                        .is_some_and(|s| has_name(&row.services, s))
                        && of_class(&row.classes, &|k| call.receiver_call_on(k))
                }
                Form::Instance => of_class(&row.classes, &|k| call.receiver_is(k)),
                _ => false,
            };
            form_ok
                && (row.requests.is_empty()
                    || (0..call.arg_count())
                        .any(|i| row.requests.iter().any(|k| call.arg_is(i, k))))
                && !row
                    .only_with
                    .as_ref()
                    .is_some_and(|w| has(&w.methods) && call.arg_lacks(0, &w.property))
        })?;
        Some(SideEffectMatch {
            label: &row.label,
            row: &row.id,
        })
    }

    fn money_endpoint(&self, url: &str) -> Option<SideEffectMatch<'_>> {
        let (host, path) = split_url(url)?;
        let row = self.side_effects.endpoints.iter().find(|row| {
            row.hosts.iter().any(|h| h.eq_ignore_ascii_case(host))
                && row.paths.iter().any(|p| path_matches(p, path))
        })?;
        Some(SideEffectMatch {
            label: &row.label,
            row: &row.id,
        })
    }

    fn client_base_attributes(&self, annotation_is: &dyn Fn(&str) -> bool) -> Option<&[String]> {
        self.side_effects
            .client_bases
            .iter()
            .find(|b| b.annotations.iter().any(|a| annotation_is(a)))
            .map(|b| b.attributes.as_slice())
    }

    fn is_lock_wrapper(&self, method: &str) -> bool {
        self.guards
            .cluster_locks
            .wrappers
            .iter()
            .any(|m| glob(m, method))
    }

    fn lock_method(&self, call: &dyn Site) -> Option<bool> {
        let locks = &self.guards.cluster_locks;
        if !locks.methods.iter().any(|m| glob(m, call.name())) {
            return None;
        }
        // A JVM-local lock (`ReentrantLock`, `Semaphore`, a rate limiter) guards one replica.
        Some(!locks.local_types.iter().any(|x| call.receiver_is(x)))
    }

    fn granted_events(&self) -> &[String] {
        &self.guards.cluster_locks.granted_events
    }

    fn is_claim(&self, call: &dyn Site) -> bool {
        self.guards
            .cluster_locks
            .claims
            .iter()
            .any(|(classes, methods)| {
                has_name(methods, call.name())
                    && classes.iter().any(|k| match call.form() {
                        Form::Bare => call.enclosing_is(k),
                        Form::Instance | Form::InstanceRef => call.receiver_is(k),
                        _ => false,
                    })
            })
    }

    fn claim_key(&self, call: &dyn Site) -> Option<usize> {
        self.guards
            .cluster_locks
            .keyed_claims
            .iter()
            .find(|(classes, methods, _)| {
                has_name(methods, call.name())
                    && matches!(call.form(), Form::Instance | Form::InstanceRef)
                    && classes
                        .iter()
                        .any(|k| call.receiver_is(k) || call.chain_root_is(k))
            })
            .map(|(_, _, k)| *k)
    }

    fn is_lock_sql(&self, sql: &str) -> bool {
        let locks = &self.guards.cluster_locks;
        let t = sql_words(sql);
        locks.sql.iter().any(|f| t.contains(f.as_str()))
            || locks
                .sql_all
                .iter()
                .any(|all| all.iter().all(|f| t.contains(f.as_str())))
    }

    fn is_row_lock_sql(&self, sql: &str) -> bool {
        let t = sql_words(sql);
        self.guards
            .cluster_locks
            .row_lock_sql
            .iter()
            .any(|f| t.contains(f.as_str()))
    }

    fn is_row_lock_annotation(&self, is: &dyn Fn(&str) -> bool, mode: &str) -> bool {
        self.guards
            .cluster_locks
            .lock_annotations
            .iter()
            .any(|(types, modes)| types.iter().any(|t| is(t)) && modes.iter().any(|m| m == mode))
    }
}

fn has_name(names: &[String], name: &str) -> bool {
    names.iter().any(|m| m == name)
}

impl Catalogue {
    /// The words looked for in every file of the scanned tree, parsed or not: those that enable
    /// partial batch responses (`item_failures`' `enabled_by`) and those that declare event
    /// source mappings (`mappings`), each sorted.
    pub fn tree_words(&self) -> (Vec<&str>, Vec<&str>) {
        let rows = &self.regions.item_failures;
        let mut enabling: Vec<&str> = rows
            .iter()
            .flat_map(|r| &r.enabled_by)
            .map(String::as_str)
            .collect();
        let mut declaring: Vec<&str> = rows
            .iter()
            .flat_map(|r| &r.mappings)
            .map(String::as_str)
            .collect();
        for v in [&mut enabling, &mut declaring] {
            v.sort_unstable();
            v.dedup();
        }
        (enabling, declaring)
    }

    /// The words of key sinks and side effects the prefilter looks for in a file.
    pub fn effect_words(&self) -> EffectWords<'_> {
        let sinks = &self.sinks;
        EffectWords {
            sink_methods: sinks.methods.iter().flat_map(|m| &m.names).collect(),
            reported_annotations: self
                .regions
                .annotation
                .iter()
                .filter(|r| r.report_dead)
                .flat_map(|r| {
                    let imported = r.enabled_by_import.iter().flat_map(|i| &i.classes);
                    r.annotations.iter().chain(&r.enabled_by).chain(imported)
                })
                .collect(),
            key_classes: sinks.constructor.iter().flat_map(|c| &c.classes).collect(),
            header_names: &sinks.headers.names.words,
            literal_words: self
                .side_effects
                .endpoints
                .iter()
                .flat_map(|e| &e.paths)
                .map(|p| p.split("/*").next().unwrap_or(p).to_string())
                .collect(),
            param_contains: &sinks.parameters.contains,
            param_equals: &sinks.parameters.equals,
            side_effects: self
                .side_effects
                .side_effect
                .iter()
                .map(|se| SideEffectWords {
                    classes: self.leading_to(&se.classes),
                    methods: se
                        .static_methods
                        .iter()
                        .chain(&se.instance)
                        .chain(&se.services)
                        .collect(),
                })
                .collect(),
        }
    }
}

impl Catalogue {
    /// `classes` and every library class whose catalogued accessors (`[[sources.factory]]`)
    /// return one of them, directly or through other accessors.
    fn leading_to<'a>(&'a self, classes: &'a [String]) -> Vec<&'a String> {
        let mut out: Vec<&String> = classes.iter().collect();
        let mut i = 0;
        while i < out.len() {
            let target = out[i].as_str();
            for f in &self.sources.factory {
                let leads = f.returns.as_deref() == Some(target)
                    || f.accessors.values().any(|r| r == target);
                for o in f.owners() {
                    if leads && !out.contains(&o) {
                        out.push(o);
                    }
                }
            }
            i += 1;
        }
        out
    }
}

/// SQL text lowercased with one space between words, however the query was laid out
/// (`for update\n  skip locked`).
fn sql_words(sql: &str) -> String {
    sql.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The parts of a derived query's condition between the capitalised words `seps`
/// (`StatusAndDueAtBefore` at `And`: `Status`, `DueAtBefore`); a separator counts only where a
/// capital letter follows it (`Ordinal` is one property).
fn split_words<'a>(s: &'a str, seps: &[&str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 1;
    while i < s.len() {
        let hit = seps.iter().find(|sep| {
            s[i..].starts_with(**sep)
                && s[i + sep.len()..].starts_with(|c: char| c.is_ascii_uppercase())
        });
        if let Some(sep) = hit {
            out.push(&s[start..i]);
            start = i + sep.len();
            i = start + 1;
        } else {
            i += s[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// The host and the path of an absolute URL (`https://api.stripe.com:443/v1/charges?x=1` →
/// `api.stripe.com`, `/v1/charges`).
fn split_url(url: &str) -> Option<(&str, &str)> {
    let rest = url.trim().split_once("://")?.1;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let host = authority.rsplit('@').next()?.split(':').next()?;
    let path = path.split(['?', '#']).next().unwrap_or(path);
    Some((host, path))
}

/// Does `path` match the pattern segment by segment, `*` in the pattern and a `{placeholder}`
/// in the path each matching any one segment (a trailing `/` ignored)?
fn path_matches(pattern: &str, path: &str) -> bool {
    let segs = |s: &str| -> Vec<String> {
        s.split('/')
            .filter(|x| !x.is_empty())
            .map(str::to_string)
            .collect()
    };
    let (p, q) = (segs(pattern), segs(path));
    p.len() == q.len()
        && p.iter()
            .zip(&q)
            .all(|(a, b)| a == "*" || (b.starts_with('{') && b.ends_with('}')) || a == b)
}

#[cfg(test)]
mod endpoint_tests {
    use super::{path_matches, split_url};

    #[test]
    fn urls_split_into_host_and_path() {
        assert_eq!(
            split_url("https://api.stripe.com/v1/charges?expand=x"),
            Some(("api.stripe.com", "/v1/charges"))
        );
        assert_eq!(
            split_url("https://user@api.yookassa.ru:443/v3/payments/"),
            Some(("api.yookassa.ru", "/v3/payments/"))
        );
        assert_eq!(split_url("/v1/charges"), None);
    }

    #[test]
    fn paths_match_by_segment() {
        assert!(path_matches("/v1/charges", "/v1/charges/"));
        assert!(path_matches(
            "/v1/charges/*/capture",
            "/v1/charges/{chargeId}/capture"
        ));
        assert!(!path_matches("/v1/charges", "/v1/charges/{id}"));
        assert!(!path_matches("/v1/refunds", "/v1/charges"));
    }
}
