//! Header containers: a key written into an object that holds a request's headers
//! (`HttpHeaders headers = new HttpHeaders(); headers.set("Idempotence-Key", k)`) is sent only
//! where the container is, and with that request's HTTP method. A key on a read (GET, HEAD,
//! OPTIONS) deduplicates nothing (SPEC 5), so the rules count the header write for a region only
//! where the region sends the container on a request that is not a read, or on one whose method
//! cannot be told.
//!
//! The interpreter follows the container as a value (`Origin::Container`): into the requests a
//! call sends or builds (the model's `http_call`, on the call or on its receiver chain:
//! `restClient.get().headers(h -> h.addAll(headers))`), into project methods through their
//! summaries (`param_sends`: the requests a parameter goes out on; a declarative client's
//! abstract method sends every argument with the method its annotations give), and out of the
//! method it is made in (`ret_container`: each caller follows what it receives as a container
//! of its own).

use super::cx::Cx;
use super::model::{KeyField, MethodAnnotation, Verb};
use super::place::*;
use super::site::CallSite;
use super::*;
use crate::java::ir::*;
use crate::semantic::MethodId;

impl Sends {
    pub(super) fn add(&mut self, v: Verb) {
        match v {
            Verb::Read => self.read = true,
            Verb::Write => self.write = true,
        }
    }

    fn join(&mut self, o: Sends) {
        self.read |= o.read;
        self.write |= o.write;
        self.returned |= o.returned;
    }
}

impl Cx<'_> {
    /// A key header written into a container made in this method (a local that holds neither
    /// a parameter, a field nor what a lambda is handed): the container carries the key from
    /// here on, and the write `at` counts only where the container is sent.
    pub(super) fn note_key_container(&mut self, c: &Call) {
        let Some(Expr::Name(n, _)) = c.recv.as_ref().map(Expr::peel) else {
            return;
        };
        let header = self
            .model
            .named_key(&CallSite::call(self, c))
            .is_some_and(|k| k.field == KeyField::Header);
        if !header {
            return;
        }
        // The sink's span, as the call's effects give it.
        let at = Span {
            start: c.name_span.start,
            end: c.span.end,
        };
        let place = Place::local(n);
        if !self.is_local(n) || self.rooted_in_param(&place) {
            return;
        }
        let held = self.env.get(&place).cloned().unwrap_or_default();
        if held.iter().any(|o| {
            matches!(
                o,
                Origin::Param(_) | Origin::ParamField(..) | Origin::Field(_)
            )
        }) {
            return;
        }
        let own = held.iter().find_map(|o| match o {
            Origin::Container(k) if self.out.containers[*k as usize].from.is_none() => Some(*k),
            _ => None,
        });
        let k = match own {
            Some(k) => k,
            None => self.new_container(None),
        };
        self.out.containers[k as usize].sinks.push(at);
        self.env
            .entry(place)
            .or_default()
            .insert(Origin::Container(k));
    }

    fn new_container(&mut self, from: Option<MethodId>) -> u32 {
        let k = self.out.containers.len() as u32;
        self.out.containers.push(Container {
            from,
            sinks: Vec::new(),
            sends: Sends::default(),
        });
        k
    }

    /// A library call that sends or builds a request with a known HTTP method, given
    /// containers or parameters (in its receiver or arguments): they go out with that method.
    pub(super) fn note_sends(&mut self, c: &Call, recv_t: &Taint, args: &[Taint]) {
        let carried = |o: &Origin| matches!(o, Origin::Container(_) | Origin::Param(_));
        if !recv_t.iter().chain(args.iter().flatten()).any(carried) {
            return;
        }
        let Some(verb) = self.verb_of(c) else {
            return;
        };
        let held: Vec<Origin> = recv_t
            .iter()
            .chain(args.iter().flatten())
            .filter(|o| carried(o))
            .cloned()
            .collect();
        self.send(&held, Sends::of(verb));
    }

    /// What a call that decides the HTTP method returns (a response, a request with its method
    /// chosen) no longer stands for the containers it was given: they are sent with it.
    pub(super) fn drop_sent_containers(&self, c: &Call, t: &mut Taint) {
        if t.iter().any(|o| matches!(o, Origin::Container(_))) && self.verb_of(c).is_some() {
            t.retain(|o| !matches!(o, Origin::Container(_)));
        }
    }

    /// The HTTP method a call decides: its own (`exchange(url, HttpMethod.GET, …)`, `.get()`
    /// on a request builder), or the one of a call it is chained on (`restClient.get()` before
    /// `.headers(…)`).
    fn verb_of(&self, c: &Call) -> Option<Verb> {
        let mut cur = Some(c);
        let mut depth = 0;
        while let Some(x) = cur {
            if let Some(v) = self.model.http_call(&CallSite::call(self, x)) {
                return Some(v);
            }
            depth += 1;
            cur = match x.recv.as_ref().map(Expr::peel) {
                Some(Expr::Call(r)) if depth < 16 => Some(r),
                _ => None,
            };
        }
        None
    }

    /// Containers and parameters among `held` go out as `sends` says.
    fn send(&mut self, held: &[Origin], sends: Sends) {
        for o in held {
            match o {
                Origin::Container(k) => self.out.containers[*k as usize].sends.join(sends),
                Origin::Param(p) => self
                    .out
                    .summary
                    .param_sends
                    .entry(*p)
                    .or_default()
                    .join(sends),
                _ => {}
            }
        }
    }

    /// A call of project method `m`: the requests it sends its arguments on, and the container
    /// it returns.
    pub(super) fn project_sends(&mut self, m: MethodId, args: &[Taint], result: &mut Taint) {
        let s = self.sums.of(m);
        let sends: Vec<(usize, Sends)> = s
            .param_sends
            .iter()
            .map(|(i, x)| (*i as usize, *x))
            .collect();
        let returns = s.ret_container;
        for (i, x) in sends {
            let Some(a) = args.get(i) else { continue };
            let held: Vec<Origin> = a
                .iter()
                .filter(|o| matches!(o, Origin::Container(_) | Origin::Param(_)))
                .cloned()
                .collect();
            self.send(&held, x);
        }
        if returns {
            let k = self.new_container(Some(m));
            result.insert(Origin::Container(k));
        }
    }

    /// An abstract method of a declarative client sends every argument on the request its
    /// annotations give (`@GetMapping` a read, `@PostMapping` not).
    pub(super) fn client_method_sends(&mut self) {
        let m = self.method;
        if m.has_body() || m.annotations.is_empty() {
            return;
        }
        let types: Vec<_> = m
            .annotations
            .iter()
            .map(|a| self.resolve(&a.name))
            .collect();
        let project = self.project;
        let tests: Vec<_> = types
            .iter()
            .map(|t| move |x: &str| project.type_is(t, x))
            .collect();
        let attrs: Vec<_> = m
            .annotations
            .iter()
            .map(|a| {
                move |name: &str| {
                    a.args
                        .iter()
                        .find(|(k, _)| match k {
                            None => name == "value",
                            Some(k) => k == name,
                        })
                        .and_then(|(_, v)| match v.peel() {
                            Expr::Str(s, _) => Some(s.clone()),
                            other => other.dotted(),
                        })
                }
            })
            .collect();
        let uses: Vec<MethodAnnotation<'_>> = tests
            .iter()
            .zip(&attrs)
            .map(|(is, attr)| MethodAnnotation { is, attr })
            .collect();
        let Some(verb) = self.model.client_method_verb(&uses) else {
            return;
        };
        drop(uses);
        for i in 0..m.params.len() {
            self.out
                .summary
                .param_sends
                .insert(i as u16, Sends::of(verb));
        }
        if verb == Verb::Write {
            self.out.summary.endpoint = self.money_endpoint();
        }
    }

    /// The money-moving endpoint this abstract client method posts to, when no parameter of it
    /// is a key header (a named one is a key sink; a header map may hold one): its base URL on
    /// the client interface (`@FeignClient(url = "${stripe.url}")`, resolved in the module's
    /// settings) joined with the path its annotations give.
    fn money_endpoint(&self) -> Option<(String, String)> {
        let m = self.method;
        if !self.out.summary.param_sinks.is_empty() {
            return None;
        }
        let header_map = m.params.iter().any(|p| {
            p.annotations.iter().any(|a| {
                let simple = a.name.rsplit('.').next().unwrap_or(&a.name);
                simple.contains("Header") && crate::dataflow::calls::annotation_value(a).is_none()
            })
        });
        if header_map {
            return None;
        }
        let class = self.project.class(self.class);
        let base = class.annotations.iter().find_map(|a| {
            let t = self.resolve(&a.name);
            let attrs = self
                .model
                .client_base_attributes(&|x| self.project.type_is(&t, x))?;
            attrs.iter().find_map(|k| {
                a.args
                    .iter()
                    .find(|(n, _)| n.as_deref() == Some(k.as_str()) || n.is_none() && k == "value")
                    .and_then(|(_, v)| self.setting_text(v))
            })
        })?;
        let path_of = |annotations: &[Annotation]| {
            annotations.iter().find_map(|a| {
                let simple = a.name.rsplit('.').next().unwrap_or(&a.name);
                let value = a
                    .args
                    .iter()
                    .find(|(n, _)| matches!(n.as_deref(), None | Some("value" | "path")))
                    .and_then(|(_, v)| self.setting_text(v))?;
                if simple == "RequestLine" {
                    value.split_whitespace().nth(1).map(str::to_string)
                } else {
                    value.starts_with('/').then_some(value)
                }
            })
        };
        let prefix = path_of(&class.annotations).unwrap_or_default();
        let path = path_of(&m.annotations)?;
        let mut url = base.trim_end_matches('/').to_string();
        for part in [prefix.as_str(), path.as_str()] {
            let part = part.trim_matches('/');
            if !part.is_empty() {
                url.push('/');
                url.push_str(part);
            }
        }
        let hit = self.model.money_endpoint(&url)?;
        Some((hit.label.to_string(), hit.row.to_string()))
    }

    /// The text of a string constant with its `${key}` / `${key:default}` placeholders taken
    /// from the settings of the file's module; `None` when a part cannot be told.
    fn setting_text(&self, e: &Expr) -> Option<String> {
        let text = self.project.constant(self.class, e)?;
        let mut out = String::new();
        let mut rest = text.as_str();
        while let Some(i) = rest.find("${") {
            out.push_str(&rest[..i]);
            let end = rest[i..].find('}')? + i;
            let inner = &rest[i + 2..end];
            let (key, default) = match inner.split_once(':') {
                Some((k, d)) => (k, Some(d)),
                None => (inner, None),
            };
            let values = self.project.modules().setting(self.class.0, key);
            out.push_str(values.first().copied().or(default)?);
            rest = &rest[end + 1..];
        }
        out.push_str(rest);
        Some(out)
    }
}

impl Sends {
    pub(super) fn of(v: Verb) -> Sends {
        let mut s = Sends::default();
        s.add(v);
        s
    }
}
