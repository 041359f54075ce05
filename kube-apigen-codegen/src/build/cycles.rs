//! Recursive types: which fields need a `Box`, and which cycles no value can satisfy.

use crate::error::{Error, Result, escape_pointer_segment};
use crate::ir::{Api, Origin, Presence, Ty, TypeId, TypeKind};
use crate::spec::Spec;

/// A by-value containment: `owner.fields[field]` holds a `target` inline (not behind a
/// `Vec` or map, which already allocate), or, without a field, `owner` is an alias
/// (`pub type Owner = Target;`) and so is the target itself.
struct Edge {
    owner: TypeId,
    field: Option<usize>,
    target: TypeId,
    required: bool,
}

/// Boxes every field whose type contains its owner by value, and rejects cycles made only
/// of required fields: such a type would have no finite value.
pub fn box_recursive_fields(api: &mut Api, spec: &Spec) -> Result<()> {
    let edges = by_value_edges(api);
    let all: Vec<&Edge> = edges.iter().collect();
    let component = strongly_connected(api.types.len(), &all);
    let required: Vec<&Edge> = edges.iter().filter(|e| e.required).collect();
    let required_component = strongly_connected(api.types.len(), &required);
    let cyclic = |e: &&&Edge| required_component[e.owner.index()] == required_component[e.target.index()];
    // Name the cycle from a field where there is one (a cycle of aliases has none).
    let start = required.iter().filter(cyclic).find(|e| e.field.is_some()).or_else(|| required.iter().find(cyclic));
    if let Some(start) = start {
        return Err(unconstructible(api, spec, start, &required, &required_component));
    }
    for edge in &edges {
        if component[edge.owner.index()] == component[edge.target.index()]
            && let (Some(field), TypeKind::Struct(s)) = (edge.field, &mut api.types[edge.owner.index()].kind)
        {
            s.fields[field].boxed = true;
        }
    }
    Ok(())
}

fn by_value_edges(api: &Api) -> Vec<Edge> {
    let mut edges = Vec::new();
    for owner in api.type_ids() {
        match &api.ty(owner).kind {
            TypeKind::Struct(s) => {
                for (field, f) in s.fields.iter().enumerate() {
                    if let Ty::Named(target) = f.ty.ty {
                        let required = f.presence == Presence::Required && !f.nullable;
                        edges.push(Edge { owner, field: Some(field), target, required });
                    }
                }
            }
            TypeKind::Alias(alias) => {
                if let Ty::Named(target) = alias.ty {
                    edges.push(Edge { owner, field: None, target, required: true });
                }
            }
            TypeKind::Enum(_) | TypeKind::Runtime(_) => {}
        }
    }
    edges
}

/// Tarjan's algorithm, iterative; returns the component index of every node.
fn strongly_connected(nodes: usize, edges: &[&Edge]) -> Vec<usize> {
    let mut adjacency = vec![Vec::new(); nodes];
    for edge in edges {
        adjacency[edge.owner.index()].push(edge.target.index());
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
fn unconstructible(api: &Api, spec: &Spec, start: &Edge, edges: &[&Edge], component: &[usize]) -> Error {
    let path = cycle_from(start, edges, component);
    // Named schemas by their name; inline types by their Rust name.
    let type_name = |id: TypeId| match &api.ty(id).origin {
        Origin::Schema(name) => name.clone(),
        Origin::Inline { .. } => api.ty(id).name.clone(),
    };
    let field_name = |e: &Edge| match (&api.ty(e.owner).kind, e.field) {
        (TypeKind::Struct(s), Some(field)) => Some(s.fields[field].wire_name.clone()),
        _ => None,
    };
    let cycle: Vec<String> = path
        .iter()
        .map(|e| match field_name(e) {
            Some(field) => format!("{}.{field}", type_name(e.owner)),
            None => type_name(e.owner),
        })
        .collect();
    let mut loc = super::type_loc(api.ty(start.owner));
    let problem = match field_name(start) {
        Some(field) => {
            loc.pointer.push_str(&format!("/properties/{}", escape_pointer_segment(&field)));
            "required fields form a cycle that no finite object can satisfy"
        }
        None => "schemas that are only references to each other define no type",
    };
    spec.error(&loc, format!("{problem}: {} -> {}", cycle.join(" -> "), type_name(start.owner)))
}

/// The shortest path of `edges` inside the component of `start` that leads from
/// `start.target` back to `start.owner`, beginning with `start`.
fn cycle_from<'e>(start: &'e Edge, edges: &[&'e Edge], component: &[usize]) -> Vec<&'e Edge> {
    // Breadth-first search; `reached[node]` is the edge it was first reached by.
    let mut reached: std::collections::BTreeMap<TypeId, Option<&Edge>> = std::collections::BTreeMap::new();
    reached.insert(start.target, None);
    let mut queue = std::collections::VecDeque::from([start.target]);
    while let Some(node) = queue.pop_front() {
        if node == start.owner {
            break;
        }
        let start_component = component[start.owner.index()];
        for &edge in edges.iter().filter(|e| e.owner == node && component[e.target.index()] == start_component) {
            if let std::collections::btree_map::Entry::Vacant(entry) = reached.entry(edge.target) {
                entry.insert(Some(edge));
                queue.push_back(edge.target);
            }
        }
    }
    let mut path = Vec::new();
    let mut node = start.owner;
    while let Some(Some(edge)) = reached.get(&node) {
        path.push(*edge);
        node = edge.owner;
        if node == start.target {
            break;
        }
    }
    path.push(start);
    path.reverse();
    path
}
