//! The methods every region reaches through calls, shared between regions.
//!
//! A region reaches its whole methods and everything called, transitively, from its code. Many
//! regions often enter the same helpers (a thousand `@Retryable` methods calling one client),
//! so the methods reached are kept once per entry, not once per region: each method the
//! regions' code calls (a root) has its closure computed once, and a region is its own whole
//! methods and the roots it calls. n regions over one n-long helper chain then hold one chain,
//! not n² entries.

use super::{Part, Region, scope_within};
use crate::semantic::{CallGraph, MethodId, Project};
use rayon::prelude::*;
use std::collections::{BTreeSet, HashMap};

/// What each region of a list reaches, with the regions that may cover each method.
#[derive(Default)]
pub struct Reaches {
    /// The methods reached from each root, the root included, sorted.
    closures: Vec<Vec<MethodId>>,
    /// Per region: its whole methods, sorted, and the roots its code calls (indexes into
    /// `closures`), sorted.
    regions: Vec<(Vec<MethodId>, Vec<u32>)>,
    /// Per method: the closures that hold it, ascending.
    closures_at: HashMap<MethodId, Vec<u32>>,
    /// Per method: the regions that have it as a part (whole or in part), ascending.
    parts_at: HashMap<MethodId, Vec<u32>>,
    /// Per closure: the regions that call its root, ascending.
    users: Vec<Vec<u32>>,
}

impl Reaches {
    pub fn new(project: &Project, graph: &CallGraph, regions: &[Region]) -> Reaches {
        let mut root_ids: HashMap<MethodId, u32> = HashMap::new();
        let mut roots: Vec<MethodId> = Vec::new();
        let mut per_region = Vec::with_capacity(regions.len());
        let mut parts_at: HashMap<MethodId, Vec<u32>> = HashMap::new();
        for (i, r) in (0u32..).zip(regions) {
            let mut own = Vec::new();
            let mut called = BTreeSet::new();
            for p in &r.parts {
                let (m, scoped) = match p {
                    Part::Whole(m) => (*m, None),
                    Part::Scopes(m, s) => (*m, Some(s)),
                };
                let at = parts_at.entry(m).or_default();
                if at.last() != Some(&i) {
                    at.push(i);
                }
                if scoped.is_none() {
                    own.push(m);
                }
                let mm = project.method(m);
                for (s, callee) in graph.edges(m) {
                    if scoped.is_none_or(|roots| scope_within(mm, *s, roots)) {
                        let next = roots.len() as u32;
                        let id = *root_ids.entry(*callee).or_insert_with(|| {
                            roots.push(*callee);
                            next
                        });
                        called.insert(id);
                    }
                }
            }
            own.sort();
            own.dedup();
            per_region.push((own, called.into_iter().collect::<Vec<u32>>()));
        }
        let closures: Vec<Vec<MethodId>> =
            roots.par_iter().map(|root| closure(graph, *root)).collect();
        let mut closures_at: HashMap<MethodId, Vec<u32>> = HashMap::new();
        for (c, members) in (0u32..).zip(&closures) {
            for m in members {
                closures_at.entry(*m).or_default().push(c);
            }
        }
        let mut users = vec![Vec::new(); closures.len()];
        for (i, (_, called)) in (0u32..).zip(&per_region) {
            for c in called {
                users[*c as usize].push(i);
            }
        }
        Reaches {
            closures,
            regions: per_region,
            closures_at,
            parts_at,
            users,
        }
    }

    /// Does region `i` reach `m`: one of its whole methods, or called from its code?
    pub fn contains(&self, i: usize, m: MethodId) -> bool {
        let (own, called) = &self.regions[i];
        own.binary_search(&m).is_ok()
            || called
                .iter()
                .any(|c| self.closures[*c as usize].binary_search(&m).is_ok())
    }

    /// The methods region `i` reaches (a method reached along several calls may come more than
    /// once).
    pub fn methods(&self, i: usize) -> impl Iterator<Item = MethodId> + '_ {
        let (own, called) = &self.regions[i];
        own.iter().copied().chain(
            called
                .iter()
                .flat_map(|c| self.closures[*c as usize].iter().copied()),
        )
    }

    /// The regions whose parts or reach hold `m`, ascending: the only ones that can cover a
    /// site of `m` (looked up, not every region asked for every site).
    pub fn regions_at(&self, m: MethodId) -> Vec<usize> {
        let mut out: Vec<usize> = self
            .parts_at
            .get(&m)
            .into_iter()
            .flatten()
            .chain(
                self.closures_at
                    .get(&m)
                    .into_iter()
                    .flatten()
                    .flat_map(|c| &self.users[*c as usize]),
            )
            .map(|i| *i as usize)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// The methods reached from `root` over the call graph, `root` included, sorted.
fn closure(graph: &CallGraph, root: MethodId) -> Vec<MethodId> {
    let mut seen = BTreeSet::from([root]);
    let mut stack = vec![root];
    while let Some(m) = stack.pop() {
        for (_, callee) in graph.edges(m) {
            if seen.insert(*callee) {
                stack.push(*callee);
            }
        }
    }
    seen.into_iter().collect()
}
