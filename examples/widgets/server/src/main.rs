//! The Widget API server: `widgets-server [ADDRESS]` (default 127.0.0.1:8080).

use kube_apigen::field::{ErrorList, FieldError, Path};
use kube_apigen_registry::{Server, Strategy, WriteContext, shutdown_signal};
use serde_json::{Value, json};
use widgets_api::com::example::v1::Widget;

/// What the Widget kind does beyond what its CRD says: new widgets are `Ordered`, and a
/// widget keeps its color.
struct WidgetStrategy;

impl Strategy for WidgetStrategy {
    fn prepare_for_create(&self, _: &WriteContext<'_>, widget: &mut Value) {
        widget["status"] = json!({ "phase": "Ordered" });
    }

    fn validate_update(&self, _: &WriteContext<'_>, new: &Value, old: &Value) -> ErrorList {
        let color = |widget: &Value| widget.pointer("/spec/color").cloned().unwrap_or(Value::Null);
        if color(new) == color(old) {
            return ErrorList::new();
        }
        let spec = Path::ROOT.field("spec");
        vec![FieldError::invalid(&spec.field("color"), color(new), "field is immutable")]
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let address = std::env::args().nth(1).unwrap_or_else(|| "127.0.0.1:8080".to_owned());
    let server = Server::builder(widgets_api::server::api()).strategy::<Widget>(WidgetStrategy).build()?;
    let listener = tokio::net::TcpListener::bind(&address).await?;
    println!("listening on http://{}", listener.local_addr()?);
    server.serve(listener, shutdown_signal()).await?;
    Ok(())
}
