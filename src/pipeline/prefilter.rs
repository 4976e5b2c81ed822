//! Parse only what can matter (see [`crate::scope`]): files with an effect word and, backwards,
//! the files naming what leads to one; then, forwards, whatever a lookup of the analysis
//! depended on, until the analysis of the parsed files is the analysis of the whole project.

use super::gave_up;
use super::parse::{Parsed, Part, parse_file};
use super::{Analysed, analysis};
use crate::FileError;
use crate::semantic as index;
use crate::workspace::read::read;
use crate::{Options, Report, cache, catalogue, discovery, phase, scope};
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

/// A file read and scanned as bytes.
struct Input {
    path: PathBuf,
    shown: String,
    scan: scope::Scan,
    stamp: Option<cache::Stamp>,
    /// The content hash of the bytes scanned, when the cache is on: the file's facts are looked
    /// up by it without reading the file again.
    digest: Option<[u8; 32]>,
}

pub(super) fn analyse(
    paths: &[PathBuf],
    deployed: &[u32],
    opts: &Options,
    cat: &catalogue::Catalogue,
    caches: analysis::Caches,
    report: &mut Report,
) -> Analysed {
    let cache = caches.facts;
    let needles = scope::Needles::new(&cat.effect_words());
    let inputs = scan_inputs(paths, opts, &needles, report);
    // The tree words are looked for in every file's scan, parsed or not.
    let words = super::tree_words(cat);
    let named: Vec<u32> = inputs
        .iter()
        .flatten()
        .flat_map(|i| {
            let bytes = || read(&i.path, &i.shown, opts.max_file_bytes, &opts.reader).ok();
            words.found(&i.shown, &i.scan.tokens, &bytes)
        })
        .chain(deployed.iter().copied())
        .collect();
    let mut files = Files {
        named,
        n: inputs.len(),
        parsed: (0..inputs.len()).map(|_| None).collect(),
        tried: vec![false; inputs.len()],
        inputs,
        opts,
        cache,
        caches,
        needles: &needles,
    };
    match backward(&mut files, &ClientLinks::new(cat), report) {
        Some(in_b) => {
            reported(&mut files, report);
            forward(&mut files, &in_b, cat, report)
        }
        None => everything(&mut files, cat, report),
    }
}

/// The files that name a reported annotation (a retry that may never fire is reported whatever
/// its code reaches) or one that enables its framework are parsed too. Their methods do not
/// join the backward closure: a method outside it reaches no effect, so such a region is
/// looked at for whether it can fire, not followed.
fn reported(files: &mut Files, report: &mut Report) {
    let want = files.untried(&|s| s.reported);
    files.parse(want, false, report);
}

/// Read (or take from the scan cache) and scan every file; types declared in a package shadow
/// side-effect class names in its files.
fn scan_inputs(
    paths: &[PathBuf],
    opts: &Options,
    needles: &scope::Needles,
    report: &mut Report,
) -> Vec<Option<Input>> {
    let mut scans = match &opts.cache_dir {
        Some(root) => cache::ScanCache::open(root, &needles.fingerprint),
        None => cache::ScanCache::disabled(),
    };
    type Read = (Input, Option<cache::Stamp>, bool);
    let keep = scans.enabled();
    let read_all: Vec<Result<Read, FileError>> = phase("read", || {
        paths
            .par_iter()
            .map(|p| {
                let shown = discovery::display_path(p);
                let stamp = std::fs::metadata(p)
                    .ok()
                    .filter(|m| m.is_file() && m.len() <= opts.max_file_bytes)
                    .and_then(|m| cache::stamp(&m));
                let cached = scans.get(&shown, stamp).map(|(s, d)| (s.clone(), Some(d)));
                let fresh = cached.is_none();
                let scanned = match cached {
                    Some(s) => Ok(s),
                    None => read(p, &shown, opts.max_file_bytes, &opts.reader).map(|bytes| {
                        let digest = keep.then(|| cache::content_digest(&bytes));
                        (scope::Scan::of(&bytes, needles), digest)
                    }),
                };
                if let Some(c) = &opts.progress {
                    c.file_done();
                }
                let (scan, digest) = scanned?;
                let input = Input {
                    path: p.clone(),
                    scan,
                    shown,
                    stamp,
                    digest,
                };
                Ok((input, stamp, fresh))
            })
            .collect()
    });
    if let Some(p) = &opts.progress {
        p.files_read();
    }
    let mut inputs: Vec<Option<Input>> = Vec::with_capacity(read_all.len());
    let mut entries = HashMap::new();
    let mut changed = false;
    for r in read_all {
        match r {
            Ok((i, stamp, fresh)) => {
                changed |= fresh;
                if let (Some(stamp), Some(digest)) = (stamp, i.digest) {
                    let scan = i.scan.clone();
                    let entry = cache::ScanEntry {
                        stamp,
                        scan,
                        digest,
                    };
                    entries.insert(i.shown.clone(), entry);
                }
                inputs.push(Some(i));
            }
            Err(e) => {
                report.summary.files_failed += 1;
                report.errors.push(e);
                inputs.push(None);
            }
        }
    }
    scans.save(entries, changed);
    report.summary.files_scanned = inputs.iter().flatten().count();
    shadow_declared(&mut inputs);
    inputs
}

/// Types declared in each package shadow side-effect class names in its files.
fn shadow_declared(inputs: &mut [Option<Input>]) {
    let mut declared: HashMap<Option<String>, HashSet<u32>> = HashMap::new();
    for i in inputs.iter().flatten() {
        declared
            .entry(i.scan.package.clone())
            .or_default()
            .extend(i.scan.declared.iter().copied());
    }
    for i in inputs.iter_mut().flatten() {
        if !i.scan.live.is_empty()
            && let Some(d) = declared.get(&i.scan.package)
        {
            i.scan.shadow(d);
        }
    }
}

/// The scanned files and those parsed so far.
struct Files<'a> {
    n: usize,
    inputs: Vec<Option<Input>>,
    parsed: Vec<Option<Parsed>>,
    tried: Vec<bool>,
    opts: &'a Options,
    cache: &'a cache::Cache,
    caches: analysis::Caches<'a>,
    needles: &'a scope::Needles,
    /// The catalogue's tree words that some file names (see `Project::set_tree_words`).
    named: Vec<u32>,
}

impl Files<'_> {
    /// Parse the files `want`; with `parts`, also the tokens of each method and field (for
    /// the backward closure).
    fn parse(&mut self, want: Vec<usize>, parts: bool, report: &mut Report) {
        let out: Vec<(usize, Result<Parsed, FileError>)> = want
            .par_iter()
            .filter_map(|i| {
                let input = self.inputs[*i].as_ref()?;
                let parts = parts.then_some((self.needles, input.scan.effect));
                let r = parse_file(
                    &input.path,
                    &input.shown,
                    input.digest.as_ref(),
                    self.opts,
                    self.cache,
                    parts,
                    &scope::TreeWords::default(),
                );
                Some((*i, r))
            })
            .collect();
        for (i, r) in out {
            self.tried[i] = true;
            match r {
                Ok(p) => self.parsed[i] = Some(p),
                Err(e) => {
                    report.summary.files_failed += 1;
                    report.summary.files_scanned -= 1;
                    report.errors.push(e);
                }
            }
        }
    }

    /// The files not parsed yet whose scan satisfies `pred`.
    fn untried(&self, pred: &(dyn Fn(&scope::Scan) -> bool + Sync)) -> Vec<usize> {
        (0..self.n)
            .into_par_iter()
            .filter(|i| !self.tried[*i] && self.inputs[*i].as_ref().is_some_and(|x| pred(&x.scan)))
            .collect()
    }

    /// `want` with the untried files that declare their supertypes, transitively, and for a
    /// file wanted as a subtype (`down`), the files that extend it, transitively; by name, from
    /// the scans. A hierarchy n files deep is then parsed in one forward round, not n.
    fn with_hierarchy(
        &self,
        want: Vec<usize>,
        down: &(dyn Fn(&scope::Scan) -> bool + Sync),
    ) -> Vec<usize> {
        let mut by_declared: HashMap<u32, Vec<usize>> = HashMap::new();
        let mut by_super: HashMap<u32, Vec<usize>> = HashMap::new();
        for i in (0..self.n).filter(|i| !self.tried[*i]) {
            if let Some(s) = self.scan(i) {
                for h in &s.declared {
                    by_declared.entry(*h).or_default().push(i);
                }
                for h in &s.supers {
                    by_super.entry(*h).or_default().push(i);
                }
            }
        }
        let mut taken: HashSet<usize> = want.iter().copied().collect();
        let mut queue: Vec<(usize, bool)> = want
            .iter()
            .map(|i| (*i, self.scan(*i).is_some_and(down)))
            .collect();
        while let Some((i, go_down)) = queue.pop() {
            let Some(s) = self.scan(i) else { continue };
            let up = s.supers.iter().map(|h| (by_declared.get(h), false));
            let subs = s.declared.iter().filter(|_| go_down);
            for (next, d) in up.chain(subs.map(|h| (by_super.get(h), true))) {
                for j in next.into_iter().flatten() {
                    if taken.insert(*j) {
                        queue.push((*j, d));
                    }
                }
            }
        }
        let mut v: Vec<usize> = taken.into_iter().collect();
        v.sort_unstable();
        v
    }

    fn scan(&self, i: usize) -> Option<&scope::Scan> {
        self.inputs[i].as_ref().map(|x| &x.scan)
    }

    fn parsed_count(&self) -> usize {
        self.parsed.iter().flatten().count()
    }
}

/// Interceptors run inside the regions that send through their client (SPEC 3.2): once an
/// interceptor leads to an effect, the methods of the declarative clients it may be registered
/// on (by a bean of a configuration) lead to one too. By simple names, from the
/// `[[regions.interceptor]]` rows with `beans`.
struct ClientLinks {
    /// The interceptor types (`RequestInterceptor`).
    interceptors: HashSet<u32>,
    /// The annotations that register one as a bean (`Bean`, `Component`).
    registrations: HashSet<u32>,
    /// The client annotations (`FeignClient`).
    clients: HashSet<u32>,
    /// The simple names of the functional interfaces of `[[regions.function_call]]` rows.
    functional: HashSet<String>,
    /// Interceptors registered on a client that is a bean (`[[regions.interceptor]]` rows with
    /// `injected_by`): per row, the registering calls' names, the simple names of the builder
    /// types they are called on (`WebClient` for `WebClient.Builder`) and of the bean
    /// annotations. A bean method that leads to an effect through such a registration makes its
    /// client type lead to one: every call through a field, parameter or local of that type
    /// sends through the interceptor.
    bean_clients: Vec<BeanRegistration>,
}

struct BeanRegistration {
    calls: HashSet<u32>,
    builders: HashSet<u32>,
    beans: HashSet<String>,
}

impl ClientLinks {
    fn new(cat: &catalogue::Catalogue) -> ClientLinks {
        let simple = |t: &String| scope::token_hash(t.rsplit('.').next().unwrap_or(t).as_bytes());
        let mut l = ClientLinks {
            interceptors: HashSet::new(),
            registrations: HashSet::new(),
            clients: HashSet::new(),
            functional: (cat.regions.function_call.iter().flat_map(|r| &r.types))
                .map(|t| t.rsplit('.').next().unwrap_or(t).to_string())
                .collect(),
            bean_clients: Vec::new(),
        };
        let outer = |t: &String| {
            // The first capitalised segment: `WebClient` of `…client.WebClient.Builder`.
            let first = t.split('.').find(|p| p.starts_with(char::is_uppercase));
            scope::token_hash(first.unwrap_or(t).as_bytes())
        };
        for row in &cat.regions.interceptor {
            if row.injected_by.is_empty() || row.register.is_empty() {
                continue;
            }
            let tok = |n: &String| scope::token_hash(n.as_bytes());
            l.bean_clients.push(BeanRegistration {
                calls: row.register.iter().chain(&row.accessor).map(tok).collect(),
                builders: row.receiver_types.iter().map(outer).collect(),
                beans: (row.injected_by.iter())
                    .map(|t| t.rsplit('.').next().unwrap_or(t).to_string())
                    .collect(),
            });
        }
        for row in &cat.regions.interceptor {
            let Some(b) = &row.beans else { continue };
            l.interceptors.extend(row.types.iter().map(simple));
            l.registrations.extend(
                b.bean_annotations
                    .iter()
                    .chain(&b.component_annotations)
                    .map(simple),
            );
            l.clients.extend(b.client_annotations.iter().map(simple));
        }
        l
    }

    /// Does a file with these tokens hold an interceptor registered as a bean?
    fn registers_interceptor(&self, tokens: &[u32]) -> bool {
        scope::mentions(tokens, &self.interceptors) && scope::mentions(tokens, &self.registrations)
    }

    /// The client type (its simple name's token) that bean method `m`, with these tokens,
    /// registers an interceptor on and returns (`@Bean WebClient payments(WebClient.Builder b)
    /// { return b.filter(keyFilter()).build(); }`).
    fn registered_client(&self, m: &crate::java::ir::Method, tokens: &[u32]) -> Option<u32> {
        let ret = m.ret.split('<').next().unwrap_or(&m.ret).trim();
        let simple = ret.rsplit('.').next().unwrap_or(ret);
        if simple.is_empty() || simple == "void" || simple.starts_with(char::is_lowercase) {
            return None;
        }
        self.bean_clients
            .iter()
            .any(|r| {
                scope::mentions(tokens, &r.calls)
                    && scope::mentions(tokens, &r.builders)
                    && m.annotations.iter().any(|a| {
                        let n = a.name.as_str();
                        r.beans.contains(n.rsplit('.').next().unwrap_or(n))
                    })
            })
            .then(|| scope::token_hash(simple.as_bytes()))
    }
}

/// Names that lead to an effect word, found so far: methods, constructed classes, and per
/// side-effect row the names of fields and methods through which its methods are called.
struct Closure {
    /// An interceptor bean leads to an effect: declarative clients' methods do too.
    interceptor_effect: bool,
    /// Per file, per method: does it lead to an effect?
    in_b: Vec<Vec<bool>>,
    names: HashSet<u32>,
    ctors: HashSet<u32>,
    /// Per side-effect row: names of fields and methods whose text names one of its classes
    /// (`PaymentsApi api;`, `StripeClient stripe() {…}`), through which its methods are called.
    carriers: Vec<HashSet<u32>>,
    field_carriers: Vec<HashSet<(usize, u32)>>,
    /// Files already checked against every name (then only against the names found since).
    checked: Vec<bool>,
    /// Client types an interceptor leading to an effect is registered on (token hashes), and
    /// per file, how many of them its fields were checked against.
    clients: HashSet<u32>,
    clients_checked: Vec<usize>,
}

/// What one pass of the closure added.
#[derive(Default)]
struct Added {
    names: HashSet<u32>,
    ctors: HashSet<u32>,
    carriers: Vec<HashSet<u32>>,
}

impl Added {
    fn grew(&self) -> bool {
        !self.names.is_empty()
            || !self.ctors.is_empty()
            || self.carriers.iter().any(|c| !c.is_empty())
    }
}

/// Backwards from the effect words: the methods (per file) that can lead to a key sink or a
/// side effect, or `None` when too many files may matter for the prefilter to pay off.
fn backward(files: &mut Files, links: &ClientLinks, report: &mut Report) -> Option<Vec<Vec<bool>>> {
    let n = files.n;
    let rows = files.needles.rows.len();
    let mut cl = Closure {
        interceptor_effect: false,
        in_b: vec![Vec::new(); n],
        names: HashSet::new(),
        ctors: HashSet::new(),
        carriers: vec![HashSet::new(); rows],
        field_carriers: vec![HashSet::new(); n],
        checked: vec![false; n],
        clients: HashSet::new(),
        clients_checked: vec![0; n],
    };
    let mut want = files.untried(&|s| s.effect);
    let limit = (n as f64 * files.opts.prefilter_max_share) as usize;
    let mut too_many = false;
    // A round that gave up last time with the same inputs gives up again at once.
    let seen: Vec<gave_up::Seen> = files
        .inputs
        .iter()
        .map(|i| i.as_ref().map(|i| (i.shown.as_str(), i.stamp, &i.scan)))
        .collect();
    let memory = files.caches.facts.root().and_then(|(dir, key)| {
        gave_up::Memory::open(
            dir,
            key,
            &files.needles.fingerprint,
            files.opts.prefilter_max_share,
            &seen,
        )
    });
    if memory
        .as_ref()
        .is_some_and(|m| m.gives_up(&seen, &want, limit))
    {
        if std::env::var_os("RETRYLINT_TIMINGS").is_some() {
            eprintln!("retrylint: backward round: gave up as the last run did");
        }
        return None;
    }
    drop(seen);
    let effect = want.clone();
    let mut rounds = 0;
    phase("backward", || {
        while !want.is_empty() {
            if files.parsed_count() + want.len() > limit {
                too_many = true;
                // Given up once the files with an effect word were parsed: remembered.
                if rounds == 1
                    && let Some(m) = &memory
                {
                    let seen: Vec<gave_up::Seen> = files
                        .inputs
                        .iter()
                        .map(|i| i.as_ref().map(|i| (i.shown.as_str(), i.stamp, &i.scan)))
                        .collect();
                    m.save(&seen, &effect, files.parsed_count(), want.len());
                }
                break;
            }
            rounds += 1;
            files.parse(std::mem::take(&mut want), true, report);
            let new = cl.close(files, links);
            let clients = cl.interceptor_effect;
            want = files.untried(&|s| {
                (clients && scope::mentions(&s.tokens, &links.clients))
                    || scope::mentions(&s.tokens, &new.names)
                    || scope::mentions(&s.tokens, &new.ctors)
                    || files
                        .needles
                        .rows
                        .iter()
                        .zip(&new.carriers)
                        .any(|(row, car)| {
                            // A file that may call one of the row's methods through a carrier.
                            scope::mentions(&s.tokens, car)
                                && scope::mentions(&s.tokens, &row.methods)
                        })
            });
            if std::env::var_os("RETRYLINT_TIMINGS").is_some() {
                eprintln!(
                    "retrylint: backward round: {} files parsed, {} more needed, {} names",
                    files.parsed_count(),
                    want.len(),
                    cl.names.len() + cl.ctors.len()
                );
            }
        }
    });
    // The text of methods and fields is not needed any more (nor when every file is parsed).
    for p in files.parsed.iter_mut().flatten() {
        p.methods = Vec::new();
        p.fields = Vec::new();
    }
    if too_many {
        return None;
    }
    Some(cl.in_b)
}

impl Closure {
    /// Grow the names over the parsed files until nothing is added; what was added in all.
    fn close(&mut self, files: &Files, links: &ClientLinks) -> Added {
        let rows = files.needles.rows.len();
        let mut new = Added {
            carriers: vec![HashSet::new(); rows],
            ..Added::default()
        };
        // A file is checked against every name once, then only against the names found since
        // the previous pass.
        let mut delta = Added {
            carriers: vec![HashSet::new(); rows],
            ..Added::default()
        };
        loop {
            let mut added = Added {
                carriers: self.new_carriers(files),
                ..Added::default()
            };
            for (r, a) in added.carriers.iter().enumerate() {
                self.carriers[r].extend(a);
                new.carriers[r].extend(a);
            }
            let mut carriers_now: Vec<HashSet<u32>> = delta.carriers.clone();
            for (r, a) in added.carriers.iter().enumerate() {
                carriers_now[r].extend(a);
            }
            self.mark_methods(files, &delta, &carriers_now, links, &mut added);
            self.mark_clients(files, links, &mut added);
            self.client_fields(files, &mut added);
            for (i, p) in files.parsed.iter().enumerate() {
                self.checked[i] |= p.is_some();
            }
            let grew = added.grew();
            self.names.extend(&added.names);
            self.ctors.extend(&added.ctors);
            new.names.extend(&added.names);
            new.ctors.extend(&added.ctors);
            delta = added;
            if !grew {
                return new;
            }
        }
    }

    /// Once an interceptor bean leads to an effect, the abstract methods of the interfaces in
    /// files naming a client annotation: a call of one sends a request through the interceptor.
    fn mark_clients(&mut self, files: &Files, links: &ClientLinks, added: &mut Added) {
        if !self.interceptor_effect {
            self.interceptor_effect = files.parsed.iter().enumerate().any(|(i, p)| {
                p.is_some()
                    && self.in_b[i].iter().any(|b| *b)
                    && files
                        .scan(i)
                        .is_some_and(|s| links.registers_interceptor(&s.tokens))
            });
        }
        if !self.interceptor_effect {
            return;
        }
        for (i, p) in files.parsed.iter().enumerate() {
            let Some(p) = p else { continue };
            if !files
                .scan(i)
                .is_some_and(|s| scope::mentions(&s.tokens, &links.clients))
            {
                continue;
            }
            let b = &mut self.in_b[i];
            b.resize(p.facts.methods.len().max(b.len()), false);
            for (mi, m) in p.facts.methods.iter().enumerate() {
                let interface =
                    p.facts.classes[m.class].kind == crate::java::ir::ClassKind::Interface;
                if b[mi] || !interface || m.has_body() || m.is_ctor {
                    continue;
                }
                b[mi] = true;
                let h = scope::token_hash(m.name.as_bytes());
                if !self.names.contains(&h) {
                    added.names.insert(h);
                }
            }
        }
    }

    /// The fields whose type is a client with an interceptor that leads to an effect: calls
    /// through them send through it (their users know them by name).
    fn client_fields(&mut self, files: &Files, added: &mut Added) {
        if self.clients.is_empty() {
            return;
        }
        for (i, p) in files.parsed.iter().enumerate() {
            let Some(p) = p else { continue };
            if self.clients_checked[i] == self.clients.len() {
                continue;
            }
            self.clients_checked[i] = self.clients.len();
            for f in p.facts.classes.iter().flat_map(|c| &c.fields) {
                let h = scope::token_hash(f.name.as_bytes());
                if scope::mentions(&scope::tokens(f.ty.as_bytes()), &self.clients)
                    && !self.names.contains(&h)
                {
                    added.names.insert(h);
                }
            }
        }
    }

    /// Carriers in files not checked yet: methods returning one of a row's types are called
    /// from anywhere; fields holding one are used in their own file.
    fn new_carriers(&mut self, files: &Files) -> Vec<HashSet<u32>> {
        let needles = files.needles;
        let mut added: Vec<HashSet<u32>> = vec![HashSet::new(); needles.rows.len()];
        for (i, p) in files.parsed.iter().enumerate() {
            let Some(p) = p else { continue };
            if self.checked[i] {
                continue;
            }
            let Some(scan) = files.scan(i) else {
                continue;
            };
            if scan.live.is_empty() {
                continue;
            }
            let methods = p.facts.methods.iter().map(|m| (&m.name, &m.ret, true));
            let fields = p.facts.classes.iter().flat_map(|c| &c.fields);
            for (name, ty, method) in methods.chain(fields.map(|f| (&f.name, &f.ty, false))) {
                let ty = scope::tokens(ty.as_bytes());
                let h = scope::token_hash(name.as_bytes());
                for (r, row) in needles.rows.iter().enumerate() {
                    if !scan.names_live_class(row, &ty) {
                        continue;
                    }
                    if !method {
                        self.field_carriers[i].insert((r, h));
                    } else if !self.carriers[r].contains(&h) {
                        added[r].insert(h);
                    }
                }
            }
        }
        added
    }

    /// Mark the methods that lead to an effect (a file not checked yet against every name,
    /// a checked one against `delta` and `carriers_now`), adding their names to `added`.
    fn mark_methods(
        &mut self,
        files: &Files,
        delta: &Added,
        carriers_now: &[HashSet<u32>],
        links: &ClientLinks,
        added: &mut Added,
    ) {
        for (i, p) in files.parsed.iter().enumerate() {
            let Some(p) = p else { continue };
            let full = !self.checked[i];
            let (nm, ct, cr) = if full {
                (&self.names, &self.ctors, &self.carriers[..])
            } else {
                (&delta.names, &delta.ctors, carriers_now)
            };
            let Some(scan) = files.scan(i) else {
                continue;
            };
            let b = &mut self.in_b[i];
            b.resize(p.methods.len(), false);
            for (mi, part) in p.methods.iter().enumerate() {
                if b[mi]
                    || !(scope::mentions(&part.tokens, nm)
                        || scope::mentions(&part.news, ct)
                        || has_effect(files.needles, part, scan, &self.field_carriers[i], full, cr))
                {
                    continue;
                }
                b[mi] = true;
                let m = &p.facts.methods[mi];
                if let Some(t) = links.registered_client(m, &part.tokens)
                    && self.clients.insert(t)
                    && !self.names.contains(&t)
                {
                    added.names.insert(t);
                }
                stored_functions(&self.names, m, part.text_hit, &links.functional, added);
                // Its users know it by its name, a constructor by its class's names.
                if !m.is_ctor && m.name != "<init>" {
                    let h = scope::token_hash(m.name.as_bytes());
                    if !self.names.contains(&h) {
                        added.names.insert(h);
                    }
                }
                let mut c = Some(m.class);
                while let Some(ci) = c {
                    let class = &p.facts.classes[ci];
                    let h = scope::token_hash(class.name.as_bytes());
                    if !self.ctors.contains(&h) {
                        added.ctors.insert(h);
                    }
                    c = class.outer;
                }
            }
            // Constants naming a key header, fields named as keys.
            if full {
                for (name, part) in &p.fields {
                    let h = scope::token_hash(name.as_bytes());
                    if part.text_hit && !self.names.contains(&h) {
                        added.names.insert(h);
                    }
                }
            }
        }
    }
}

/// A function stored and called later runs where it is called (`Retries.builder()
/// .action(() -> …)`, then `action.call()` in a retry loop): a method that leads to an
/// effect through a lambda or method reference it passes to `x(…)` makes `x` lead to one;
/// a method storing a functional parameter into a field (`this.action = action`) makes the
/// field's name lead to one, so the methods calling the function are followed back too.
fn stored_functions(
    names_so_far: &HashSet<u32>,
    m: &crate::java::ir::Method,
    text_hit: bool,
    functional: &HashSet<String>,
    added: &mut Added,
) {
    use crate::java::ir::{Expr, Node};
    let Some(body) = m.peek_body() else { return };
    let known = |n: &str| {
        let h = scope::token_hash(n.as_bytes());
        names_so_far.contains(&h) || added.names.contains(&h)
    };
    let mut names: Vec<&str> = Vec::new();
    for n in Node::all(&body) {
        let Node::Expr(e) = n else { continue };
        match e {
            Expr::Call(c) => {
                let leads = c.args.iter().any(|a| match a.peel() {
                    Expr::MethodRef(r) => text_hit || known(&r.name),
                    Expr::Lambda(_) => {
                        let mut stack = vec![Node::Expr(a)];
                        let mut hit = text_hit;
                        while let Some(x) = stack.pop() {
                            if let Node::Expr(Expr::Call(k)) = x {
                                hit |= known(&k.name);
                            }
                            x.children(&mut stack);
                        }
                        hit
                    }
                    _ => false,
                });
                if leads {
                    names.push(&c.name);
                }
            }
            Expr::Assign(a) if a.op == "=" => {
                let stored = match a.value.peel() {
                    Expr::Name(v, _) => m.params.iter().find(|p| p.name == *v),
                    _ => None,
                };
                let functional_param = stored.is_some_and(|p| {
                    let base = p.ty.split('<').next().unwrap_or(&p.ty).trim();
                    functional.contains(base.rsplit('.').next().unwrap_or(base))
                });
                if !functional_param {
                    continue;
                }
                if let Expr::Field(_, f, _) | Expr::Name(f, _) = a.target.peel() {
                    names.push(f);
                }
            }
            _ => {}
        }
    }
    for n in names {
        let h = scope::token_hash(n.as_bytes());
        if !names_so_far.contains(&h) {
            added.names.insert(h);
        }
    }
}

/// Does `part` reach a side effect? Full: text, side-effect class, carrier or field; delta:
/// only new carriers.
fn has_effect(
    needles: &scope::Needles,
    part: &Part,
    scan: &scope::Scan,
    fields: &HashSet<(usize, u32)>,
    full: bool,
    cars: &[HashSet<u32>],
) -> bool {
    (full && part.text_hit)
        || needles
            .rows
            .iter()
            .zip(cars)
            .enumerate()
            .any(|(r, (row, car))| {
                scope::mentions(&part.tokens, &row.methods)
                    && ((full
                        && (row.any_class
                            || scan.names_live_class(row, &part.tokens)
                            || part.tokens.iter().any(|t| fields.contains(&(r, *t)))))
                        || scope::mentions(&part.tokens, car))
            })
}

/// Most files may matter: parse the rest and analyse everything, as --no-prefilter does.
fn everything(files: &mut Files, cat: &catalogue::Catalogue, report: &mut Report) -> Analysed {
    let rest: Vec<usize> = (0..files.n).filter(|i| !files.tried[*i]).collect();
    phase("parse", || files.parse(rest, false, report));
    // Every file's facts are known: written now, before the analysis adds to the heap.
    phase("facts pack", || files.caches.facts.save_pack());
    let sources: Vec<index::SourceFile> = (0..files.n)
        .filter_map(|i| {
            let p = files.parsed[i].take()?;
            Some(index::SourceFile {
                path: files.inputs[i].as_ref()?.shown.clone(),
                facts: p.facts,
            })
        })
        .collect();
    // Every file is parsed: their byte scans (a tenth of the heap on waqitiapp) are not read
    // again.
    files.inputs = Vec::new();
    let mut project = phase("index", || index::Project::new(sources));
    project.set_tree_words(files.named.clone());
    let (findings, truncated) = analysis::find(&mut project, cat, None, false, files.caches);
    (project, findings, truncated)
}

/// Forwards from the regions, until no lookup depends on a file not parsed: cheap rounds that
/// stop once the reached methods are known, then the whole analysis, which may look up more
/// (and then goes round again).
fn forward(
    files: &mut Files,
    in_b: &[Vec<bool>],
    cat: &catalogue::Catalogue,
    report: &mut Report,
) -> Analysed {
    let mut round = 0;
    let mut probe = true;
    loop {
        round += 1;
        let order: Vec<usize> = (0..files.n)
            .filter(|i| files.parsed[*i].is_some())
            .collect();
        let (sources, only) = take_sources(files, &order, in_b);
        let mut project = phase("index", || index::Project::recording(sources));
        project.set_tree_words(files.named.clone());
        let (findings, truncated) =
            analysis::find(&mut project, cat, Some(&only), probe, files.caches);
        let deps = project.deps().map(|d| d.index());
        let want = match &deps {
            Some(d) => {
                files.with_hierarchy(files.untried(&|s| d.matches(s)), &|s| d.wants_subtypes(s))
            }
            None => Vec::new(),
        };
        if std::env::var_os("RETRYLINT_TIMINGS").is_some() {
            eprintln!(
                "retrylint: forward round {round}{}: {} files parsed, {} more needed",
                if probe { " (probe)" } else { "" },
                order.len(),
                want.len()
            );
        }
        if want.is_empty() && !probe {
            return (project, findings, truncated);
        }
        probe = !want.is_empty();
        for (k, f) in project.into_files().into_iter().enumerate() {
            if let Some(p) = files.parsed[order[k]].as_mut() {
                p.facts = f.facts;
            }
        }
        if want.is_empty() {
            continue;
        }
        phase("parse more", || files.parse(want, false, report));
    }
}

/// The parsed files `order` as the project's sources (their facts taken out, to be put back
/// after the round), and the methods of the backward closure by their index in the project.
fn take_sources(
    files: &mut Files,
    order: &[usize],
    in_b: &[Vec<bool>],
) -> (Vec<index::SourceFile>, HashSet<index::MethodId>) {
    let mut only = HashSet::new();
    let sources = order
        .iter()
        .enumerate()
        .map(|(k, i)| {
            for (mi, b) in in_b[*i].iter().enumerate() {
                if *b {
                    only.insert((k as u32, mi as u32));
                }
            }
            index::SourceFile {
                path: files.inputs[*i]
                    .as_ref()
                    .map(|x| x.shown.clone())
                    .unwrap_or_default(),
                facts: files.parsed[*i]
                    .as_mut()
                    .map(|p| std::mem::take(&mut p.facts))
                    .unwrap_or_default(),
            }
        })
        .collect();
    (sources, only)
}
