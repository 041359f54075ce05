//! Kubernetes object-meta conventions: names, namespaces, labels, annotations.
