//! Kubernetes' lists library: `isSorted()`, `sum()`, `min()`, `max()`, `indexOf(x)`,
//! `lastIndexOf(x)` on lists.

use std::cmp::Ordering;

use cel::common::types::{CelBool, CelDouble, CelInt, CelUInt, DYN_TYPE, LIST_TYPE};
use cel::common::value::{CowVal, Val};
use cel::{DeclarationError, Env, ExecutionError};

use super::{Args, Returns, args, elements};

pub(super) fn library(env: &mut Env) -> Result<(), DeclarationError> {
    env.add_member_overload("isSorted", "list_is_sorted", LIST_TYPE, vec![], is_sorted)?;
    env.add_member_overload("sum", "list_sum", LIST_TYPE, vec![], sum)?;
    env.add_member_overload("min", "list_min", LIST_TYPE, vec![], min)?;
    env.add_member_overload("max", "list_max", LIST_TYPE, vec![], max)?;
    env.add_member_overload("indexOf", "list_index_of", LIST_TYPE, vec![DYN_TYPE], index_of)?;
    env.add_member_overload("lastIndexOf", "list_last_index_of", LIST_TYPE, vec![DYN_TYPE], last_index_of)?;
    Ok(())
}

fn is_sorted<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [list] = args(a)?;
    let items = elements("isSorted", list.as_ref())?;
    for pair in items.windows(2) {
        if compare(pair[0], pair[1])?.is_gt() {
            return Ok(CowVal::owned(CelBool::from(false)));
        }
    }
    Ok(CowVal::owned(CelBool::from(true)))
}

fn sum<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [list] = args(a)?;
    let items = elements("sum", list.as_ref())?;
    let overflow = || ExecutionError::function_error("sum", "integer overflow");
    let Some(first) = items.first() else {
        return Ok(CowVal::owned(CelInt::from(0)));
    };
    if first.downcast_ref::<CelInt>().is_some() {
        let mut total: i64 = 0;
        for item in &items {
            let i = item.downcast_ref::<CelInt>().ok_or_else(|| mixed("sum", *item))?;
            total = total.checked_add(*i.inner()).ok_or_else(overflow)?;
        }
        Ok(CowVal::owned(CelInt::from(total)))
    } else if first.downcast_ref::<CelUInt>().is_some() {
        let mut total: u64 = 0;
        for item in &items {
            let u = item.downcast_ref::<CelUInt>().ok_or_else(|| mixed("sum", *item))?;
            total = total.checked_add(*u.inner()).ok_or_else(overflow)?;
        }
        Ok(CowVal::owned(CelUInt::from(total)))
    } else if first.downcast_ref::<CelDouble>().is_some() {
        let mut total = 0.0;
        for item in &items {
            let d = item.downcast_ref::<CelDouble>().ok_or_else(|| mixed("sum", *item))?;
            total += *d.inner();
        }
        Ok(CowVal::owned(CelDouble::from(total)))
    } else {
        Err(ExecutionError::no_such_member_overload("sum", vec![format!("list({})", first.get_type().name())]))
    }
}

fn mixed(function: &str, item: &dyn Val) -> ExecutionError {
    ExecutionError::function_error(function, format!("list mixes element types, found {}", item.get_type().name()))
}

fn extreme<'b, 'v>(function: &str, a: Args<'b, 'v>, wanted: Ordering) -> Returns<'b, 'v> {
    let [list] = args(a)?;
    let items = elements(function, list.as_ref())?;
    let mut best = *items
        .first()
        .ok_or_else(|| ExecutionError::function_error(function, format!("{function} called on empty list")))?;
    for item in &items[1..] {
        if compare(*item, best)? == wanted {
            best = *item;
        }
    }
    Ok(CowVal::Owned(best.clone_as_boxed()))
}

fn min<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    extreme("min", a, Ordering::Less)
}

fn max<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    extreme("max", a, Ordering::Greater)
}

fn index_of<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [list, needle] = args(a)?;
    let items = elements("indexOf", list.as_ref())?;
    let found = items.iter().position(|item| item.equals(needle.as_ref()));
    Ok(CowVal::owned(CelInt::from(found.map_or(-1, |i| i as i64))))
}

fn last_index_of<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [list, needle] = args(a)?;
    let items = elements("lastIndexOf", list.as_ref())?;
    let found = items.iter().rposition(|item| item.equals(needle.as_ref()));
    Ok(CowVal::owned(CelInt::from(found.map_or(-1, |i| i as i64))))
}

fn compare(a: &dyn Val, b: &dyn Val) -> Result<Ordering, ExecutionError> {
    match a.as_comparer() {
        Some(comparer) => comparer.compare(b),
        None => Err(ExecutionError::no_such_overload(
            "_<_",
            vec![a.get_type().name().to_owned(), b.get_type().name().to_owned()],
        )),
    }
}
