//! Recursive types: which fields need a `Box`, and which cycles no value can satisfy.

use crate::error::{Error, Result};
use crate::ir::{Api, Ty, TypeId, TypeKind};
use crate::load::Document;

/// A by-value containment: `owner.fields[field]` holds a `target` inline (not behind a
/// `Vec` or map, which already allocate).
struct Edge {
    owner: TypeId,
    field: usize,
    target: TypeId,
    required: bool,
}

/// Boxes every field whose type contains its owner by value, and rejects cycles made only
/// of required fields: such a type would have no finite value.
pub fn box_recursive_fields(api: &mut Api, docs: &[Document]) -> Result<()> {
    let edges = by_value_edges(api);
    let all: Vec<&Edge> = edges.iter().collect();
    let component = strongly_connected(api.types.len(), &all);
    let required: Vec<&Edge> = edges.iter().filter(|e| e.required).collect();
    let required_component = strongly_connected(api.types.len(), &required);
    for edge in &required {
        if required_component[edge.owner] == required_component[edge.target] {
            return Err(unconstructible(api, docs, edge, &required, &required_component));
        }
    }
    for edge in &edges {
        if component[edge.owner] == component[edge.target]
            && let TypeKind::Struct(s) = &mut api.types[edge.owner].kind
        {
            s.fields[edge.field].boxed = true;
        }
    }
    Ok(())
}

fn by_value_edges(api: &Api) -> Vec<Edge> {
    let mut edges = Vec::new();
    for (owner, ty) in api.types.iter().enumerate() {
        if let TypeKind::Struct(s) = &ty.kind {
            for (field, f) in s.fields.iter().enumerate() {
                if let Ty::Named(target) = f.ty.ty {
                    edges.push(Edge { owner, field, target, required: f.required && !f.ty.rules.nullable });
                }
            }
        }
    }
    edges
}

/// Tarjan's algorithm, iterative; returns the component index of every node.
fn strongly_connected(nodes: usize, edges: &[&Edge]) -> Vec<usize> {
    let mut adjacency = vec![Vec::new(); nodes];
    for edge in edges {
        adjacency[edge.owner].push(edge.target);
    }
    const UNVISITED: usize = usize::MAX;
    let mut index = vec![UNVISITED; nodes];
    let mut low = vec![0; nodes];
    let mut on_stack = vec![false; nodes];
    let mut component = vec![UNVISITED; nodes];
    let (mut next_index, mut next_component) = (0, 0);
    let mut stack = Vec::new();
    for root in 0..nodes {
        if index[root] != UNVISITED {
            continue;
        }
        // (node, position in its adjacency list)
        let mut work = vec![(root, 0)];
        while let Some(&mut (node, ref mut position)) = work.last_mut() {
            if *position == 0 {
                index[node] = next_index;
                low[node] = next_index;
                next_index += 1;
                stack.push(node);
                on_stack[node] = true;
            }
            if let Some(&next) = adjacency[node].get(*position) {
                *position += 1;
                if index[next] == UNVISITED {
                    work.push((next, 0));
                } else if on_stack[next] {
                    low[node] = low[node].min(index[next]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[node]);
            }
            if low[node] == index[node] {
                while let Some(member) = stack.pop() {
                    on_stack[member] = false;
                    component[member] = next_component;
                    if member == node {
                        break;
                    }
                }
                next_component += 1;
            }
        }
    }
    component
}

/// An error naming one cycle of required fields, e.g. `A.b -> B.a -> A`.
fn unconstructible(api: &Api, docs: &[Document], start: &Edge, edges: &[&Edge], component: &[usize]) -> Error {
    let mut path = vec![start];
    let mut current = start.target;
    while current != start.owner && path.len() <= api.types.len() {
        let Some(next) = edges.iter().find(|e| e.owner == current && component[e.target] == component[start.owner]) else {
            break;
        };
        path.push(next);
        current = next.target;
    }
    let field_name = |e: &Edge| match &api.types[e.owner].kind {
        TypeKind::Struct(s) => s.fields[e.field].wire_name.clone(),
        _ => String::new(),
    };
    let cycle: Vec<String> =
        path.iter().map(|e| format!("{}.{}", api.types[e.owner].schema_name, field_name(e))).collect();
    let owner = &api.types[start.owner];
    let pointer = format!(
        "/components/schemas/{}/properties/{}",
        crate::error::escape_pointer_segment(&owner.schema_name),
        crate::error::escape_pointer_segment(&field_name(start))
    );
    docs[owner.source].error(
        &pointer,
        format!(
            "required fields form a cycle that no finite object can satisfy: {} -> {}",
            cycle.join(" -> "),
            owner.schema_name
        ),
    )
}
