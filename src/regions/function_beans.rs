//! Functions declared as beans that a framework binds to a message destination (Spring Cloud
//! Stream's functional model: `@Bean Consumer<PaymentEvent> payments()`): the function runs for
//! every message and again when it fails (`maxAttempts`, 3 by default). The catalogue's
//! `[[regions.function_bean]]` rows say which methods and which application settings.

use super::liveness::Dead;
use super::pipelines::collect_returns;
use super::{Part, Region};
use crate::catalogue::Catalogue;
use crate::java::ir::{Expr, LambdaBody};
use crate::semantic::{Loc, MethodId, Project};

/// Does every function the bean method returns have a block body that never fails (SPEC 3.3:
/// `event -> { try { … } catch (Exception e) { log… } }`)? Then no message is redelivered.
fn never_fails(project: &Project, cat: &Catalogue, id: MethodId, rets: &[&Expr]) -> Option<Dead> {
    let mut found = None;
    for e in rets {
        let Expr::Lambda(l) = e.peel() else {
            return None;
        };
        let LambdaBody::Block(b) = &l.body else {
            return None;
        };
        let dead = super::liveness::function_never_fails(project, cat, id, b)?;
        found.get_or_insert(dead);
    }
    found
}

/// The function-bean regions among the `wanted` methods.
pub fn function_bean_regions(
    project: &Project,
    cat: &Catalogue,
    wanted: &dyn Fn(&MethodId) -> bool,
) -> Vec<Region> {
    let mut out = Vec::new();
    if cat.regions.function_bean.is_empty() {
        return out;
    }
    for id in project.all_methods().filter(|m| wanted(m)) {
        let m = project.method(id);
        if !m.has_body() || m.annotations.is_empty() || m.ret.is_empty() {
            continue;
        }
        let class = project.class_of(id);
        let resolve = |ty: &str| project.resolve_type(id.0, Some(class.1 as usize), ty);
        for row in &cat.regions.function_bean {
            let annotated = m.annotations.iter().any(|a| {
                let t = resolve(&a.name);
                row.annotations.iter().any(|x| project.type_is(&t, x))
            });
            let ret = resolve(&m.ret);
            if !annotated
                || !row.types.iter().any(|x| project.type_is(&ret, x))
                || !project.modules().sets_under(id.0, &row.setting_prefix)
            {
                continue;
            }
            let Some(body) = m.body() else { continue };
            let mut rets = Vec::new();
            collect_returns(body, &mut rets);
            let scopes: Vec<_> = rets
                .iter()
                .filter_map(|e| match e.peel() {
                    Expr::Lambda(l) => Some(l.scope),
                    _ => None,
                })
                .collect();
            if scopes.is_empty() {
                continue;
            }
            let dead = row
                .attempts_settings
                .iter()
                .find_map(|s| {
                    let key = s.replace("{name}", &m.name);
                    let v = project
                        .modules()
                        .setting(id.0, &key)
                        .first()?
                        .trim()
                        .to_string();
                    Some((s.clone(), v))
                })
                .filter(|(_, v)| v == "1")
                .map(|(setting, value)| Dead::SingleAttempt {
                    setting: setting.replace("{name}", &m.name),
                    value,
                    in_annotation: false,
                })
                .or_else(|| never_fails(project, cat, id, &rets));
            let loc = Loc {
                file: id.0,
                span: m.name_span,
            };
            let parts = vec![Part::Scopes(id, scopes)];
            out.push(Region {
                dead,
                ..Region::new(&row.label, m.name.to_string(), loc, parts, &row.id)
            });
            break;
        }
    }
    out
}
