//! The `.proto` files of a specs folder, read with protox (a protobuf compiler in Rust,
//! no `protoc` needed): the messages Kubernetes' protobuf encoding writes, with their
//! field numbers and types.
//!
//! The files live under `proto/` in the specs folder, each at its import path
//! (`proto/k8s.io/api/certificates/v1/generated.proto` is imported as
//! `k8s.io/api/certificates/v1/generated.proto`), as Kubernetes publishes them. A message
//! is named for the model it encodes by its file's Go package: `go_package =
//! "k8s.io/api/certificates/v1"` and message `CertificateSigningRequest` encode the schema
//! `io.k8s.api.certificates.v1.CertificateSigningRequest` (the first path element, a
//! domain, reversed, as Kubernetes names its OpenAPI schemas).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use prost_reflect::{Cardinality, DescriptorPool, Kind};

use crate::error::{Error, Result};

/// The folder of a specs folder that holds its `.proto` files.
pub const PROTO_FOLDER: &str = "proto";

/// The messages of a specs folder's `.proto` files, by the schema name they encode.
#[derive(Debug, Default)]
pub struct Protos {
    pub messages: BTreeMap<String, ProtoMessage>,
    files: Vec<ProtoFile>,
}

#[derive(Debug)]
struct ProtoFile {
    display_path: PathBuf,
}

/// Where something is written in a `.proto` file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProtoLoc {
    file: usize,
    /// 1-based line and column, when the compiler kept them.
    position: Option<(usize, usize)>,
}

#[derive(Debug)]
pub struct ProtoMessage {
    /// The full protobuf name (`k8s.io.api.certificates.v1.CertificateSigningRequest`).
    pub name: String,
    pub fields: Vec<ProtoField>,
    pub loc: ProtoLoc,
}

#[derive(Debug)]
pub struct ProtoField {
    pub name: String,
    pub number: u32,
    pub label: Label,
    /// The type of the field, of each item, or of each map value.
    pub ty: ProtoType,
    pub loc: ProtoLoc,
}

/// `optional`, `repeated` or `map<string, _>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Label {
    /// One value: `optional` or `required`.
    Single,
    /// `repeated`: a list.
    Repeated,
    /// A map with string keys (Kubernetes has no other).
    Map,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProtoType {
    /// A scalar type by its protobuf name: `string`, `int32`, `bytes`, ...
    Scalar(&'static str),
    /// A message by its full name.
    Message(String),
}

impl std::fmt::Display for ProtoType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProtoType::Scalar(name) => f.write_str(name),
            ProtoType::Message(name) => f.write_str(name),
        }
    }
}

impl Protos {
    /// Reads every `.proto` file under `<specs>/proto`; none when the folder does not exist.
    pub fn read(specs: &Path) -> Result<Protos> {
        let root = specs.join(PROTO_FOLDER);
        if !root.is_dir() {
            return Ok(Protos::default());
        }
        let mut names = Vec::new();
        collect(&root, &root, &mut names)?;
        names.sort();
        if names.is_empty() {
            return Ok(Protos::default());
        }
        let label = crate::load::label(specs).join(PROTO_FOLDER);
        let mut compiler = protox::Compiler::new([&root]).map_err(|e| Error::in_file(&label, e.to_string()))?;
        compiler.include_source_info(true);
        compiler.open_files(&names).map_err(|e| compile_error(&label, &root, &e))?;
        let pool = compiler.descriptor_pool();
        Ok(read_pool(&pool, &label))
    }

    /// An error at `loc` in a `.proto` file.
    pub fn error(&self, loc: ProtoLoc, message: impl Into<String>) -> Error {
        let file = &self.files[loc.file];
        Error::in_file(&file.display_path, message).with_position(loc.position)
    }

    /// The message with this full protobuf name.
    pub fn by_proto_name(&self, name: &str) -> Option<&ProtoMessage> {
        self.messages.values().find(|m| m.name == name)
    }
}

fn collect(root: &Path, dir: &Path, names: &mut Vec<String>) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::in_file(dir, format!("cannot read folder: {e}")))?;
    for entry in entries {
        let path = entry.map_err(|e| Error::in_file(dir, e.to_string()))?.path();
        if path.is_dir() {
            collect(root, &path, names)?;
        } else if path.extension().is_some_and(|e| e == "proto") {
            let relative = path.strip_prefix(root).unwrap_or(&path);
            names.push(relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"));
        }
    }
    Ok(())
}

/// A compiler error, pointing into the file it names where it can.
fn compile_error(label: &Path, root: &Path, error: &protox::Error) -> Error {
    use miette::Diagnostic;
    let Some(file) = error.file() else { return Error::in_file(label, error.to_string()) };
    let offset = error.labels().and_then(|mut labels| labels.next()).map(|label| label.offset());
    let position = offset.and_then(|offset| {
        let source = std::fs::read_to_string(root.join(file)).ok()?;
        let before = source.get(..offset)?;
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        Some((line, column))
    });
    Error::in_file(label.join(file), error.to_string()).with_position(position)
}

fn read_pool(pool: &DescriptorPool, label: &Path) -> Protos {
    let mut protos = Protos::default();
    for file in pool.files() {
        let proto = file.file_descriptor_proto();
        let Some(package) = go_package_schema_prefix(proto.options.as_ref().and_then(|o| o.go_package.as_deref()))
        else {
            continue;
        };
        let file_index = protos.files.len();
        protos.files.push(ProtoFile { display_path: label.join(file.name()) });
        let locations: BTreeMap<&[i32], (usize, usize)> = proto
            .source_code_info
            .iter()
            .flat_map(|info| &info.location)
            .filter(|l| l.span.len() >= 2)
            .map(|l| (l.path.as_slice(), (l.span[0] as usize + 1, l.span[1] as usize + 1)))
            .collect();
        let loc = |path: &[i32]| ProtoLoc { file: file_index, position: locations.get(path).copied() };
        for message in file.messages() {
            let fields = message
                .fields()
                .map(|field| {
                    let (label, ty) = if field.is_map() {
                        let Kind::Message(entry) = field.kind() else { unreachable!("map fields are entries") };
                        (Label::Map, proto_type(&entry.map_entry_value_field().kind()))
                    } else if field.cardinality() == Cardinality::Repeated {
                        (Label::Repeated, proto_type(&field.kind()))
                    } else {
                        (Label::Single, proto_type(&field.kind()))
                    };
                    ProtoField {
                        name: field.name().to_owned(),
                        number: field.number(),
                        label,
                        ty,
                        loc: loc(field.path()),
                    }
                })
                .collect();
            protos.messages.insert(
                format!("{package}.{}", message.name()),
                ProtoMessage { name: message.full_name().to_owned(), fields, loc: loc(message.path()) },
            );
        }
    }
    protos
}

fn proto_type(kind: &Kind) -> ProtoType {
    match kind {
        Kind::Message(message) => ProtoType::Message(message.full_name().to_owned()),
        Kind::Enum(e) => ProtoType::Message(e.full_name().to_owned()),
        Kind::Double => ProtoType::Scalar("double"),
        Kind::Float => ProtoType::Scalar("float"),
        Kind::Int32 => ProtoType::Scalar("int32"),
        Kind::Int64 => ProtoType::Scalar("int64"),
        Kind::Uint32 => ProtoType::Scalar("uint32"),
        Kind::Uint64 => ProtoType::Scalar("uint64"),
        Kind::Sint32 => ProtoType::Scalar("sint32"),
        Kind::Sint64 => ProtoType::Scalar("sint64"),
        Kind::Fixed32 => ProtoType::Scalar("fixed32"),
        Kind::Fixed64 => ProtoType::Scalar("fixed64"),
        Kind::Sfixed32 => ProtoType::Scalar("sfixed32"),
        Kind::Sfixed64 => ProtoType::Scalar("sfixed64"),
        Kind::Bool => ProtoType::Scalar("bool"),
        Kind::String => ProtoType::Scalar("string"),
        Kind::Bytes => ProtoType::Scalar("bytes"),
    }
}

/// The schema-name prefix of a Go package: `k8s.io/api/certificates/v1` ->
/// `io.k8s.api.certificates.v1`. Relative packages (`./openapiv2;openapi_v2`) name no
/// schemas.
fn go_package_schema_prefix(go_package: Option<&str>) -> Option<String> {
    let path = go_package?.split(';').next()?;
    if path.is_empty() || path.starts_with('.') {
        return None;
    }
    let mut elements = path.split('/');
    let domain: Vec<&str> = elements.next()?.split('.').rev().collect();
    Some(domain.into_iter().chain(elements).collect::<Vec<_>>().join("."))
}

#[cfg(test)]
mod tests {
    use super::go_package_schema_prefix;

    #[test]
    fn go_packages_name_schemas_as_kubernetes_does() {
        assert_eq!(go_package_schema_prefix(Some("k8s.io/api/certificates/v1")).unwrap(), "io.k8s.api.certificates.v1");
        assert_eq!(
            go_package_schema_prefix(Some("k8s.io/apimachinery/pkg/apis/meta/v1")).unwrap(),
            "io.k8s.apimachinery.pkg.apis.meta.v1"
        );
        assert_eq!(go_package_schema_prefix(Some("sigs.k8s.io/x/v1;v1")).unwrap(), "io.k8s.sigs.x.v1");
        assert_eq!(go_package_schema_prefix(Some("./openapiv2;openapi_v2")), None);
        assert_eq!(go_package_schema_prefix(None), None);
    }
}
