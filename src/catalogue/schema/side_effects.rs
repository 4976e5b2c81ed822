//! The side-effect tables of the catalogue (`rules/side_effects.toml`).

use serde::Deserialize;

/// Known non-idempotent calls: `[[side_effects.call]]`, `[[side_effects.key_carrier]]`,
/// `[[side_effects.endpoint]]`, `[[side_effects.client_base]]`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SideEffectTables {
    pub call: Vec<SideEffect>,
    pub key_carrier: Vec<KeyCarrier>,
    pub endpoint: Vec<Endpoint>,
    pub client_base: Vec<ClientBase>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SideEffect {
    pub id: String,
    pub classes: Vec<String>,
    #[serde(default, rename = "static")]
    pub static_methods: Vec<String>,
    #[serde(default)]
    pub instance: Vec<String>,
    /// Accessors of a client (`classes`) that return a service whose `instance` methods count.
    #[serde(default)]
    pub services: Vec<String>,
    /// Request classes: when given, the call counts only with an argument of one of them
    /// (PayPal's `client.execute(new OrdersCaptureRequest(id))`, not `OrdersGetRequest`).
    #[serde(default)]
    pub requests: Vec<String>,
    /// A property the first argument must be able to carry for `methods` to move money
    /// (Stripe's `PaymentIntent.create` charges only with `confirm` set).
    #[serde(default)]
    pub only_with: Option<OnlyWith>,
    pub label: String,
}

/// Calls of a side-effect row that move money only when their first argument sets `property`:
/// an argument the calling method builds with one `builder()…build()` chain that never sets it
/// (or sets it to `false`) makes no side effect (an unconfirmed payment intent); any other argument counts.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OnlyWith {
    pub methods: Vec<String>,
    pub property: String,
}

/// Types of request options that may carry a key (globs on the simple name).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyCarrier {
    pub id: String,
    pub types: Vec<String>,
}

/// A provider's money-moving REST endpoints, for requests sent through a declarative client:
/// a URL whose host is one of `hosts` and whose path matches one of `paths` (`*` matches one
/// segment, and so does a `{placeholder}` of the client's path).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Endpoint {
    pub id: String,
    pub hosts: Vec<String>,
    pub paths: Vec<String>,
    pub label: String,
}

/// Where a declarative client's base URL is written: an attribute (the first of `attributes`
/// given) of one of `annotations` on the client interface.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientBase {
    pub id: String,
    pub annotations: Vec<String>,
    pub attributes: Vec<String>,
}
