//! CEL rules from `x-kubernetes-validations`.
