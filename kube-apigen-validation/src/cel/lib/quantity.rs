//! Kubernetes' quantity library: `quantity`, `isQuantity` and the methods of
//! `kubernetes.Quantity` values, bound to the runtime's [`Amount`], which holds a
//! quantity as the API server does (see there for what depends on the representation:
//! `isInteger()` holds for `quantity('1k')` and `quantity('50k').sub(20)`, not for
//! `quantity('1000m')` or `quantity('1Pi')`). Comparisons and `==` are by amount
//! (`quantity('1') == quantity('1000m')`).
//!
//! Differences from the API server: `quantity('+')`, `'-'` and `'.'` are invalid here (Go
//! reads them as zero, against the documented grammar, see
//! [`kube_apigen_core::Quantity::validate`]); `add`/`sub` of quantities more than 4096
//! decimal digits apart in scale fail instead of computing a number of that many digits.

use std::any::Any;
use std::cmp::Ordering;
use std::sync::LazyLock;

use cel::common::types::{CelBool, CelDouble, CelInt, INT_TYPE, STRING_TYPE, Type};
use cel::common::value::{CowVal, StaticVal, Val};
use cel::{DeclarationError, Env, ExecutionError};

use super::{Args, Returns, args, k8s_error, string_arg};
use kube_apigen_core::wire::Amount;

/// `kubernetes.Quantity`.
static QUANTITY_TYPE: LazyLock<Type> = LazyLock::new(|| Type::new_opaque_type("kubernetes.Quantity"));

/// A `kubernetes.Quantity` value.
#[derive(Clone, Debug)]
pub(super) struct Quantity(Amount);

impl Val for Quantity {
    fn get_type(&self) -> &Type {
        &QUANTITY_TYPE
    }

    fn cel_type() -> &'static Type {
        &QUANTITY_TYPE
    }

    fn equals(&self, other: &dyn Val) -> bool {
        other.downcast_ref::<Quantity>().is_some_and(|other| self.0 == other.0)
    }

    fn clone_as_boxed<'v>(&self) -> Box<dyn Val + 'v> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> Option<&dyn Any> {
        Some(self)
    }
}

impl StaticVal for Quantity {}

/// Registers the library.
pub(super) fn library(env: &mut Env) -> Result<(), DeclarationError> {
    let quantity = || (*QUANTITY_TYPE).to_owned();
    env.add_type(quantity())?;
    env.add_overload("quantity", "string_to_quantity", vec![STRING_TYPE], to_quantity)?;
    env.add_overload("isQuantity", "is_quantity_string", vec![STRING_TYPE], is_quantity)?;
    env.add_member_overload("sign", "quantity_sign", quantity(), vec![], sign)?;
    env.add_overload("sign", "sign_quantity", vec![quantity()], sign)?;
    env.add_member_overload("isInteger", "quantity_is_integer", quantity(), vec![], is_integer)?;
    env.add_member_overload("asInteger", "quantity_get_int", quantity(), vec![], as_integer)?;
    env.add_member_overload("asApproximateFloat", "quantity_get_float", quantity(), vec![], as_approximate_float)?;
    env.add_member_overload("add", "quantity_add", quantity(), vec![quantity()], add)?;
    env.add_member_overload("add", "quantity_add_int", quantity(), vec![INT_TYPE], add)?;
    env.add_member_overload("sub", "quantity_sub", quantity(), vec![quantity()], sub)?;
    env.add_member_overload("sub", "quantity_sub_int", quantity(), vec![INT_TYPE], sub)?;
    env.add_member_overload(
        "isGreaterThan",
        "quantity_is_greater_than",
        quantity(),
        vec![quantity()],
        is_greater_than,
    )?;
    env.add_member_overload("isLessThan", "quantity_is_less_than", quantity(), vec![quantity()], is_less_than)?;
    env.add_member_overload("compareTo", "quantity_compare_to", quantity(), vec![quantity()], compare_to)?;
    Ok(())
}

fn amount<'a>(function: &str, value: &'a dyn Val) -> Result<&'a Amount, ExecutionError> {
    value
        .downcast_ref::<Quantity>()
        .map(|q| &q.0)
        .ok_or_else(|| ExecutionError::no_such_overload(function, vec![value.get_type().name().to_owned()]))
}

/// A quantity, or an int as `resource.NewQuantity(n, DecimalExponent)`.
fn operand(function: &str, value: &dyn Val) -> Result<Amount, ExecutionError> {
    match value.downcast_ref::<CelInt>() {
        Some(i) => Ok(Amount::from_int(*i.inner())),
        None => amount(function, value).cloned(),
    }
}

fn to_quantity<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [text] = args(a)?;
    let amount = string_arg("quantity", text.as_ref())?.parse::<Amount>().map_err(k8s_error)?;
    Ok(CowVal::owned(Quantity(amount)))
}

fn is_quantity<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [text] = args(a)?;
    let valid = string_arg("isQuantity", text.as_ref())?.parse::<Amount>().is_ok();
    Ok(CowVal::owned(CelBool::from(valid)))
}

fn sign<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [q] = args(a)?;
    Ok(CowVal::owned(CelInt::from(amount("sign", q.as_ref())?.sign())))
}

fn is_integer<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [q] = args(a)?;
    let integer = amount("isInteger", q.as_ref())?.as_int64().is_some();
    Ok(CowVal::owned(CelBool::from(integer)))
}

fn as_integer<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [q] = args(a)?;
    let value =
        amount("asInteger", q.as_ref())?.as_int64().ok_or_else(|| k8s_error("cannot convert value to integer"))?;
    Ok(CowVal::owned(CelInt::from(value)))
}

fn as_approximate_float<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [q] = args(a)?;
    let value = amount("asApproximateFloat", q.as_ref())?.approximate_float();
    Ok(CowVal::owned(CelDouble::from(value)))
}

fn add<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [q, other] = args(a)?;
    let sum = amount("add", q.as_ref())?.checked_add(&operand("add", other.as_ref())?).ok_or_else(precision)?;
    Ok(CowVal::owned(Quantity(sum)))
}

fn sub<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [q, other] = args(a)?;
    let difference = amount("sub", q.as_ref())?.checked_sub(&operand("sub", other.as_ref())?).ok_or_else(precision)?;
    Ok(CowVal::owned(Quantity(difference)))
}

fn ordering(function: &str, a: &dyn Val, b: &dyn Val) -> Result<Ordering, ExecutionError> {
    Ok(amount(function, a)?.cmp(amount(function, b)?))
}

fn is_greater_than<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [q, other] = args(a)?;
    let greater = ordering("isGreaterThan", q.as_ref(), other.as_ref())?.is_gt();
    Ok(CowVal::owned(CelBool::from(greater)))
}

fn is_less_than<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [q, other] = args(a)?;
    let less = ordering("isLessThan", q.as_ref(), other.as_ref())?.is_lt();
    Ok(CowVal::owned(CelBool::from(less)))
}

fn compare_to<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [q, other] = args(a)?;
    let order = ordering("compareTo", q.as_ref(), other.as_ref())? as i64;
    Ok(CowVal::owned(CelInt::from(order)))
}

fn precision() -> ExecutionError {
    k8s_error("quantity arithmetic exceeds the supported precision")
}
