//! cel-go's sets library, which Kubernetes includes: `sets.contains(a, b)`,
//! `sets.equivalent(a, b)`, `sets.intersects(a, b)` on lists.

use cel::common::types::{CelBool, LIST_TYPE};
use cel::common::value::{CowVal, Val};
use cel::{DeclarationError, Env, ExecutionError};

use super::{Args, Returns, args, elements};

pub(super) fn library(env: &mut Env) -> Result<(), DeclarationError> {
    env.add_overload("sets.contains", "list_sets_contains_list", vec![LIST_TYPE, LIST_TYPE], sets_contains)?;
    env.add_overload("sets.equivalent", "list_sets_equivalent_list", vec![LIST_TYPE, LIST_TYPE], sets_equivalent)?;
    env.add_overload("sets.intersects", "list_sets_intersects_list", vec![LIST_TYPE, LIST_TYPE], sets_intersects)?;
    Ok(())
}

fn contains_all(function: &str, outer: &dyn Val, inner: &dyn Val) -> Result<bool, ExecutionError> {
    let outer = elements(function, outer)?;
    let inner = elements(function, inner)?;
    Ok(inner.iter().all(|i| outer.iter().any(|o| o.equals(*i))))
}

fn sets_contains<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [outer, inner] = args(a)?;
    let holds = contains_all("sets.contains", outer.as_ref(), inner.as_ref())?;
    Ok(CowVal::owned(CelBool::from(holds)))
}

fn sets_equivalent<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [x, y] = args(a)?;
    let holds = contains_all("sets.equivalent", x.as_ref(), y.as_ref())?
        && contains_all("sets.equivalent", y.as_ref(), x.as_ref())?;
    Ok(CowVal::owned(CelBool::from(holds)))
}

fn sets_intersects<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [x, y] = args(a)?;
    let x = elements("sets.intersects", x.as_ref())?;
    let y = elements("sets.intersects", y.as_ref())?;
    let holds = x.iter().any(|a| y.iter().any(|b| a.equals(*b)));
    Ok(CowVal::owned(CelBool::from(holds)))
}
