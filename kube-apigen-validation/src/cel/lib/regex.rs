//! Regular expressions in rules, as Go's RE2 reads them (`crate::go::regexp`): CEL's
//! `matches` (the `cel` crate's own, on Unicode classes, is switched off), and Kubernetes'
//! regex library: `find(re)`, `findAll(re)`, `findAll(re, n)` on strings.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use cel::common::types::{CelInt, CelList, CelString, INT_TYPE, STRING_TYPE};
use cel::common::value::{CowVal, Val};
use cel::{DeclarationError, Env, ExecutionError};
use regex::Regex;

use super::{Args, Returns, args, string_arg};

pub(super) fn library(env: &mut Env) -> Result<(), DeclarationError> {
    env.add_overload("matches", "matches", vec![STRING_TYPE, STRING_TYPE], matches)?;
    env.add_member_overload("matches", "matches_string", STRING_TYPE, vec![STRING_TYPE], matches)?;
    env.add_member_overload("find", "string_find_string", STRING_TYPE, vec![STRING_TYPE], find)?;
    env.add_member_overload("findAll", "string_find_all_string", STRING_TYPE, vec![STRING_TYPE], find_all)?;
    env.add_member_overload(
        "findAll",
        "string_find_all_string_int",
        STRING_TYPE,
        vec![STRING_TYPE, INT_TYPE],
        find_all_n,
    )?;
    Ok(())
}

/// Regexes compiled by `find`/`findAll`, kept since rules repeat them on every request.
fn compiled(function: &str, pattern: &str) -> Result<Arc<Regex>, ExecutionError> {
    static CACHE: LazyLock<Mutex<HashMap<String, Arc<Regex>>>> = LazyLock::new(Default::default);
    const MAX_CACHED: usize = 256;
    let mut cache = CACHE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(re) = cache.get(pattern) {
        return Ok(Arc::clone(re));
    }
    let re =
        Arc::new(crate::go::regexp::compile(pattern).map_err(|err| {
            ExecutionError::function_error(function, format!("'{pattern}' not a valid regex: {err}"))
        })?);
    if cache.len() >= MAX_CACHED {
        cache.clear();
    }
    cache.insert(pattern.to_owned(), Arc::clone(&re));
    Ok(re)
}

/// `s.matches(re)`, `matches(s, re)`: whether `re` matches anywhere in `s`.
fn matches<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [haystack, pattern] = args(a)?;
    let re = compiled("matches", string_arg("matches", pattern.as_ref())?)?;
    Ok(CowVal::owned(cel::common::types::CelBool::from(re.is_match(string_arg("matches", haystack.as_ref())?))))
}

fn find<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [haystack, pattern] = args(a)?;
    let re = compiled("find", string_arg("find", pattern.as_ref())?)?;
    let found = re.find(string_arg("find", haystack.as_ref())?).map_or("", |m| m.as_str());
    Ok(CowVal::owned(CelString::from(found.to_owned())))
}

fn find_all_limited<'b, 'v>(haystack: &dyn Val, pattern: &dyn Val, limit: Option<usize>) -> Returns<'b, 'v> {
    let re = compiled("findAll", string_arg("findAll", pattern)?)?;
    let haystack = string_arg("findAll", haystack)?;
    let found: Vec<Box<dyn Val + 'v>> = re
        .find_iter(haystack)
        .take(limit.unwrap_or(usize::MAX))
        .map(|m| Box::new(CelString::from(m.as_str().to_owned())) as Box<dyn Val + 'v>)
        .collect();
    Ok(CowVal::owned(CelList::from(found)))
}

fn find_all<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [haystack, pattern] = args(a)?;
    find_all_limited(haystack.as_ref(), pattern.as_ref(), None)
}

fn find_all_n<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [haystack, pattern, n] = args(a)?;
    let n = *n
        .as_ref()
        .downcast_ref::<CelInt>()
        .ok_or_else(|| ExecutionError::function_error("findAll", "expected an int limit"))?
        .inner();
    // A negative limit means all matches, as in Go's `FindAllString`.
    let limit = usize::try_from(n).ok();
    find_all_limited(haystack.as_ref(), pattern.as_ref(), limit)
}
