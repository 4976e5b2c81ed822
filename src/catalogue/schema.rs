//! The one shape of a catalogue file: the built-in `rules/*.toml` and a user's file
//! (`--catalogue FILE`, the catalogue tables of `retrylint.toml`) are read with these types.
//! Every table is optional, so a file may hold any subset; unknown keys are errors.
//!
//! Every row has an `id`, unique in the compiled catalogue: kebab-case words prefixed by the
//! row's top-level table (`region.`, `source.`, `sink.`, `guard.`, `side-effect.`), e.g.
//! `source.uuid-random`. A row can be disabled by its id.

use serde::Deserialize;

mod side_effects;
mod sources;
pub use side_effects::*;
pub use sources::*;

/// A catalogue file.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CatalogueFile {
    pub regions: Regions,
    pub sources: SourceTables,
    pub sinks: SinkTables,
    pub guards: GuardTables,
    pub side_effects: SideEffectTables,
}

/// Re-execution regions: `[[regions.annotation]]`, `[[regions.callback]]`, ….
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Regions {
    pub annotation: Vec<AnnotationRegion>,
    pub callback: Vec<CallbackRegion>,
    pub pipeline: Vec<PipelineRegion>,
    pub implementation: Vec<ImplementationRegion>,
    pub interceptor: Vec<InterceptorRegion>,
    pub aspect: Vec<AspectRow>,
    pub recursion: Vec<RecursionRegion>,
    pub step: Vec<StepRegion>,
    pub function_bean: Vec<FunctionBeanRegion>,
    pub function_call: Vec<FunctionCall>,
    pub rethrow: Vec<Rethrow>,
    pub observability: Vec<Observability>,
    pub deferred: Vec<Deferred>,
    pub item_failures: Vec<ItemFailures>,
    #[serde(default)]
    pub ack_loop: Vec<AckLoop>,
    #[serde(default)]
    pub redelivery: Vec<Redelivery>,
}

/// Calls by which a listener hands its message back to the broker for another delivery
/// (RabbitMQ's `basicNack(tag, false, true)`, Spring Kafka's `Acknowledgment.nack(…)`, JMS
/// `session.recover()`): a catch clause that makes one fails the delivery as a rethrow does. On
/// a receiver whose declared type (a parameter or a field) is one of `types`; with `arg`, the
/// call redelivers unless that argument is written as one of `unless` (`false`: dead-letter or
/// drop); a call without that argument redelivers.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Redelivery {
    pub id: String,
    pub types: Vec<String>,
    pub methods: Vec<String>,
    #[serde(default)]
    pub arg: Option<usize>,
    #[serde(default)]
    pub unless: Vec<String>,
}

/// A hand-written consumer: a loop over received messages whose body acknowledges its item
/// with a call of one of `methods` on a receiver of one of `classes` (or, where the receiver's
/// type is unknown, with an argument read by one of `item_accessors` from the item). A message
/// whose handling fails before that call is delivered again.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AckLoop {
    pub id: String,
    pub classes: Vec<String>,
    pub methods: Vec<String>,
    pub item_accessors: Vec<String>,
    pub label: String,
}

/// Values a redelivered handler returns to have only some of its items delivered again (an AWS
/// Lambda partial batch response), which the platform reads only where the event source
/// mapping enables it (`enabled_by`, words of the scanned tree). A tree that declares such
/// mappings (`mappings`) and never enables it has them ignored: the invocation succeeded, and
/// reporting an item fails nothing. A tree that declares none is deployed from elsewhere, where
/// the mapping is assumed to read them.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ItemFailures {
    pub id: String,
    /// The response type and its item type, fully qualified (a nested type as `Outer.Inner`).
    pub types: Vec<String>,
    pub enabled_by: Vec<String>,
    pub mappings: Vec<String>,
}

/// Types whose failure comes after the method that returns one has returned (futures,
/// publishers): a `try` in its body does not catch it, and a retry or a listener container sees
/// it when the value completes.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deferred {
    pub id: String,
    pub types: Vec<String>,
}

/// Observability objects (metrics registries, counters, timers): calls on them record that
/// work happens and do none of it, so they may come before a catch-all `try` like a logging
/// call.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Observability {
    pub id: String,
    pub types: Vec<String>,
}

/// Library methods that throw the exception they are handed (`Throwables.throwIfUnchecked(e)`):
/// a catch clause that calls one with the caught exception rethrows it, so the body can fail.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rethrow {
    pub id: String,
    pub class: String,
    pub methods: Vec<String>,
}

/// Functional interfaces: a call of one of `methods` on a value of one of `types` runs the
/// lambdas and method references that flow into that value — also when the value is held in a
/// field that a constructor, a setter or a builder filled. (A project interface with one
/// abstract method is functional without a row.)
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FunctionCall {
    pub id: String,
    pub label: String,
    pub types: Vec<String>,
    pub methods: Vec<String>,
}

/// Functions declared as beans that a framework binds to a message destination and calls for
/// every message, again when the call fails (Spring Cloud Stream's functional consumers): a
/// method carrying one of `annotations` and returning one of `types`, in an application that
/// sets something under `setting_prefix`. The lambda it returns is the region.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FunctionBeanRegion {
    pub id: String,
    pub label: String,
    pub annotations: Vec<String>,
    pub types: Vec<String>,
    pub setting_prefix: String,
    /// The settings that give the number of attempts for the function named `{name}`, most
    /// specific first; `1` turns the retry off (the region is dead, not reported).
    #[serde(default)]
    pub attempts_settings: Vec<String>,
}

/// Steps of an integration flow that the framework runs again when they fail: only the failing
/// step re-runs, not the flow from its start (Camel redelivers at the point of failure; a
/// Spring Integration advice wraps one handler). A call named one of `methods` adds a step; its
/// code is the first argument that is a lambda, an anonymous class, a method reference, or an
/// object of a project class (its `callback_methods`, or the method a following string argument
/// names: `.bean(service, "charge")`, `.handle(service, "charge")`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepRegion {
    pub id: String,
    pub label: String,
    pub methods: Vec<String>,
    #[serde(default)]
    pub callback_methods: Vec<String>,
    /// The step counts only in a class extending one of these (`RouteBuilder`) …
    #[serde(default)]
    pub builder_supertypes: Vec<String>,
    /// … whose code calls one of these with an argument other than `0`
    /// (`onException(…).maximumRedeliveries(3)`): redelivery is off by default.
    #[serde(default)]
    pub enabled_by_calls: Vec<String>,
    /// Or: the step counts only when another argument of its call passes a value of one of
    /// `advice_types` to a call named `advice_method` (`e -> e.advice(retryAdvice())`).
    #[serde(default)]
    pub advice_method: Option<String>,
    #[serde(default)]
    pub advice_types: Vec<String>,
    /// The step's callback receives the message the flow hands on to its next step (a Camel
    /// `Exchange`), and these calls on it give the message (`getIn`, `getMessage`): a key its
    /// code sets on the exchange or its message is sent by a later step, which a redelivery
    /// re-runs with the same message, not by this one — unless the step's code passes the
    /// exchange or its message on to a call (it may send it itself). Empty: not such a step.
    #[serde(default)]
    pub message_accessors: Vec<String>,
}

/// Recursive retries: a method that calls itself again from its failure path — a `catch`
/// block, or a function handed to one of `failure_handlers` (operators that run it only when
/// the work before them failed) — re-executes its body; a parameter the recursive call moves
/// by a step (`attempt(n + 1)`) is its attempt counter.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecursionRegion {
    pub id: String,
    #[serde(default)]
    pub failure_handlers: Vec<String>,
    pub label: String,
}

/// An aspect that wraps a method next to its retry annotation (Resilience4j's circuit breaker,
/// rate limiter, time limiter, bulkhead), and where it sits in Spring's order: a lower order
/// runs outside a higher one.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AspectRow {
    pub id: String,
    pub annotations: Vec<String>,
    /// Its default place in Spring's order.
    pub order: i64,
    /// The application setting that changes `order` (relaxed binding).
    #[serde(default)]
    pub property: Option<String>,
    /// When not empty, the aspect fails every call of a method returning none of these types.
    #[serde(default)]
    pub async_returns: Vec<String>,
}

/// Methods of classes (and lambdas) implementing a framework type, which the framework calls
/// again for every attempt or period.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImplementationRegion {
    pub id: String,
    /// Interfaces or classes whose implementations count.
    #[serde(default)]
    pub supertypes: Vec<String>,
    /// Or: project interfaces carrying one of these annotations.
    #[serde(default)]
    pub supertype_annotations: Vec<String>,
    /// The implemented methods that run again; `*` means every method the supertype declares.
    pub methods: Vec<String>,
    pub label: String,
    #[serde(default)]
    pub scheduler: bool,
    /// The implemented method counts only when its first parameter is one of these types (a
    /// Lambda handler of a queue or asynchronous event, which is delivered again when the handler
    /// fails; not one of an HTTP request, which is answered once). Empty: every implementation.
    #[serde(default)]
    pub param_types: Vec<String>,
    /// The body runs again only when an attempt fails (a redelivery), so an implementation whose
    /// body catches every exception and does not rethrow never runs again and is no region.
    #[serde(default)]
    pub on_failure: bool,
}

/// HTTP client interceptors that their client runs again when it re-sends a request by itself:
/// one row per way of registering an interceptor on such a client. An interceptor whose
/// registration is not found, or whose client does not re-send, is not a region of its own.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InterceptorRegion {
    pub id: String,
    /// The interceptor types: project classes implementing one, lambdas and anonymous classes
    /// of one.
    pub types: Vec<String>,
    /// The methods of an implementation that run for every request (or every try) it sees.
    pub methods: Vec<String>,
    pub label: String,
    /// Registration by a call: `receiver.register(interceptor)` on one of `receiver_types`
    /// (`*`: any receiver; the argument must then be one of `types`).
    #[serde(default)]
    pub receiver_types: Vec<String>,
    #[serde(default)]
    pub register: Vec<String>,
    /// The interceptor argument; `None`: every argument (a list of policies).
    #[serde(default)]
    pub arg: Option<usize>,
    /// With a list of policies, only the arguments after one of these types re-run (the
    /// policies after the retry policy).
    #[serde(default)]
    pub after_arg_types: Vec<String>,
    /// The client does not re-send when it is configured with one of these values (a call
    /// `method(value)` on the same builder chain, or a bean returning one of the values).
    #[serde(default)]
    pub no_resend: Option<NoResend>,
    /// An implementation that overrides `method` to return one of `once` runs once per call.
    #[serde(default)]
    pub position: Option<Position>,
    /// Registration as a bean of a declarative client's configuration.
    #[serde(default)]
    pub beans: Option<BeanClients>,
    /// The client never re-sends by itself: the registration makes no region of its own, and
    /// the interceptor runs only inside the regions that send through the client.
    #[serde(default)]
    pub sends_only: bool,
    /// Registration through an accessor of the client (`restTemplate.getInterceptors().add(i)`):
    /// the registering call's receiver is this call on one of `receiver_types`.
    #[serde(default)]
    pub accessor: Option<String>,
    /// Calls on the client that send a read (`getForObject`): not followed into the caller's
    /// region.
    #[serde(default)]
    pub reads: Vec<String>,
    /// A client registered in a method with one of these annotations and returned from it is
    /// a bean (`@Bean RestTemplate payments()`): it is injected by its type into the fields of
    /// the application's classes, whose calls send through it.
    #[serde(default)]
    pub injected_by: Vec<String>,
    /// Annotations that name the bean a field or constructor parameter wants where several
    /// beans have its type (`@Qualifier("pspRestTemplate")`); else the parameter's or the
    /// field's name does.
    #[serde(default)]
    pub qualified_by: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoResend {
    /// The builder method that sets the retry behaviour (`retryer`).
    pub method: String,
    /// Names of values that never re-send (`NEVER_RETRY`).
    pub values: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Position {
    pub method: String,
    pub once: Vec<String>,
}

/// Declarative clients (`@FeignClient`) and the beans that configure them: an interceptor bean
/// in a class named by a client's `configuration_attribute` applies to that client only; one in
/// any other class with `bean_annotations` methods applies to every client of the application.
/// A client re-sends when a bean of one of `resend_types` applies to it (and does not return a
/// `no_resend` value).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BeanClients {
    pub client_annotations: Vec<String>,
    pub configuration_attribute: String,
    pub bean_annotations: Vec<String>,
    /// Classes whose interceptor implementations are beans by themselves (`@Component`).
    #[serde(default)]
    pub component_annotations: Vec<String>,
    /// Client methods that send a read (`@GetMapping`): a key on a read deduplicates no
    /// operation, so the interceptors they run are not followed into the caller's region.
    #[serde(default)]
    pub read_annotations: Vec<String>,
    pub resend_types: Vec<String>,
    /// Annotations that make a configuration class a bean of its own for component scanning
    /// (`@Configuration`, `@Component`): such a class, named as a client's configuration but
    /// inside the packages a `scan_roots` annotation scans, is application-wide (its beans apply
    /// to every client), not that client's only.
    #[serde(default)]
    pub scanned_annotations: Vec<String>,
    /// Annotations of an application class that scan packages for components, in order: on a
    /// class, the first row that matches decides (an explicit `@ComponentScan` replaces the one
    /// `@SpringBootApplication` implies).
    #[serde(default)]
    pub scan_roots: Vec<ScanRoot>,
}

/// An annotation that component-scans packages: the ones its `packages` attributes list
/// (strings), those of the classes its `classes` attributes name (`X.class`), or, with neither,
/// the package of the class it annotates and the packages below it. A scan with one of the
/// `exclude` attributes set is not followed (its filters are not read): a class it could exclude
/// is not taken as scanned by it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScanRoot {
    pub annotation: String,
    #[serde(default)]
    pub packages: Vec<String>,
    #[serde(default)]
    pub classes: Vec<String>,
    #[serde(default)]
    pub exclude: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnnotationRegion {
    pub id: String,
    pub annotations: Vec<String>,
    /// Those of `annotations` the framework also finds on an annotation of the application
    /// (a composed annotation: `@interface RetryablePayment` annotated `@Retryable`), which
    /// then makes the methods it annotates regions.
    #[serde(default)]
    pub composable: Vec<String>,
    pub label: String,
    #[serde(default)]
    pub class_level: bool,
    /// Methods of an annotated class that carry one of these are not regions.
    #[serde(default)]
    pub class_level_except: Vec<String>,
    #[serde(default)]
    pub scheduler: bool,
    /// Annotations that switch the framework on in an application (`@EnableRetry`); empty for
    /// a starter that enables itself.
    #[serde(default)]
    pub enabled_by: Vec<String>,
    /// Configuration classes of the framework whose import (`@Import(RetryConfiguration.class)`
    /// on a class) switches it on as `enabled_by` does: what the enabling annotation itself
    /// imports.
    #[serde(default)]
    pub enabled_by_import: Option<ImportEnabler>,
    /// Applied through a Spring-AOP proxy: a private or static method is never intercepted.
    #[serde(default)]
    pub proxied: bool,
    /// The body runs again only when an attempt fails (a retry, a redelivery), so a body that
    /// catches every exception and does not rethrow never runs again.
    #[serde(default)]
    pub on_failure: bool,
    /// With `on_failure`: annotation attributes that make the listener acknowledge its messages
    /// itself (`@SqsListener(acknowledgementMode = "MANUAL")`). A message it leaves
    /// unacknowledged is delivered again, so a body that catches every failure still runs again.
    #[serde(default)]
    pub manual_ack: Vec<AttributeValues>,
    /// An annotation of this row that can never fire is reported (RL006).
    #[serde(default)]
    pub report_dead: bool,
    /// On a method returning a type of a `[[regions.pipeline]]` row (`Mono`, `Flux`, …), the
    /// framework retries the returned pipeline, not the call: the body runs once, at assembly,
    /// and only the pipeline's deferred parts run again (Spring Framework 7, Resilience4j).
    #[serde(default)]
    pub resubscribes_returned: bool,
    /// The annotation counts only when this attribute names a bean (a method of that name, such
    /// as a `@Bean` method) of one of these types: `@ServiceActivator(adviceChain = "retryAdvice")`
    /// with a `RequestHandlerRetryAdvice`.
    #[serde(default)]
    pub when_bean_attribute: Option<BeanAttribute>,
    /// Its place among the `[[regions.aspect]]` rows (Spring's order) …
    #[serde(default)]
    pub aspect_order: Option<i64>,
    /// … and the application setting that changes it.
    #[serde(default)]
    pub aspect_property: Option<String>,
    /// The application settings that list the exceptions this retry retries: a failure it does
    /// not retry ends the call as surely as a return.
    #[serde(default)]
    pub exception_settings: Option<ExceptionSettings>,
    /// How many times the retry runs the method: one attempt never runs it again (SPEC 3.3).
    #[serde(default)]
    pub attempts: Option<AttemptSettings>,
}

/// Where a retry annotation's number of attempts is set. The first of these that is set
/// decides: an `overrides` setting of the application, the instance's `instance_setting` (read
/// as `exception_settings` reads its lists: the instance, else its base, else the default
/// configuration), the first `attributes` of the annotation given; else the framework's default,
/// which retries. A value that cannot be read (an expression, a placeholder the application's
/// settings do not resolve, a constant of another type) leaves the retry live, as does any of
/// the `opaque` attributes (a policy handed to a bean).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttemptSettings {
    /// What the number counts: `attempts` (the first call included: one never retries) or
    /// `retries` (after the first call: zero never retries; a negative one is unbounded).
    pub counts: AttemptCount,
    #[serde(default)]
    pub attributes: Vec<String>,
    /// Settings keys, `{class}` the fully qualified class and `{method}` the method's name
    /// (MicroProfile Config's `{class}/{method}/Retry/maxRetries`).
    #[serde(default)]
    pub overrides: Vec<String>,
    #[serde(default)]
    pub instance_setting: Option<String>,
    #[serde(default)]
    pub opaque: Vec<String>,
}

#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AttemptCount {
    Attempts,
    Retries,
}

/// Where an application lists the exceptions a named retry retries (Resilience4j's
/// `resilience4j.retry.instances.<name>.retry-exceptions`). An instance's own list wins; else the
/// list of its base configuration; else, with no base configuration named, the list of
/// `default_config`. A listed class counts with its subclasses; with no list, every exception
/// is retried but the ignored ones.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExceptionSettings {
    /// The annotation attribute that names the instance (`name`).
    pub instance_attribute: String,
    /// The setting prefix of an instance and of a shared configuration, `{}` standing for the
    /// name (`resilience4j.retry.instances.{}`, `resilience4j.retry.configs.{}`).
    pub instance: String,
    pub config: String,
    /// The configuration an instance without `base` inherits (`default`).
    pub default_config: String,
    /// Under a prefix: the base configuration's name, the retried and the ignored exceptions
    /// (lists of class names), and settings that hand the decision to code (a predicate class),
    /// with which the lists alone do not decide.
    pub base: String,
    pub retry: String,
    pub ignore: String,
    #[serde(default)]
    pub opaque: Vec<String>,
    /// Exception classes outside the project, each followed by its superclasses: a thrown
    /// exception is known not to be retried only when every superclass it has outside the
    /// project is one of these.
    pub known_classes: Vec<Vec<String>>,
}

/// An annotation attribute set to one of `values`: a string literal, or a constant (an enum
/// value) by its simple name.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttributeValues {
    pub attribute: String,
    pub values: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BeanAttribute {
    pub name: String,
    pub types: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallbackRegion {
    pub id: String,
    pub receiver_types: Vec<String>,
    pub methods: Vec<String>,
    /// Index of the callback argument; negative counts from the end (-1: the last).
    pub callback_arg: i32,
    /// The call counts only with at least this many arguments.
    #[serde(default)]
    pub min_args: usize,
    /// The call counts only when this argument has one of these types.
    #[serde(default)]
    pub when_arg: Option<ArgType>,
    #[serde(default)]
    pub callback_methods: Vec<String>,
    #[serde(default)]
    pub receiver_name_contains: Option<String>,
    pub label: String,
    #[serde(default)]
    pub scheduler: bool,
    /// The calls that run the callback again only when it fails (SPEC 3.3): a callback whose
    /// block body swallows every exception never does, so the call makes no region.
    #[serde(default)]
    pub catch_all: Option<CatchAllEnds>,
}

/// Calls of a retry callback row whose callback fails only by throwing (not through a returned
/// future): `methods`; among them, those whose callback type declares no checked exception (a
/// `java.util.function` type), where a `RuntimeException` clause takes every failure:
/// `unchecked`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatchAllEnds {
    pub methods: Vec<String>,
    #[serde(default)]
    pub unchecked: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArgType {
    pub index: usize,
    pub types: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PipelineRegion {
    pub id: String,
    pub types: Vec<String>,
    pub operators: Vec<String>,
    pub label: String,
    #[serde(default)]
    pub factories: Vec<ClassMethods>,
    #[serde(default)]
    pub chain_methods: Vec<String>,
    #[serde(default)]
    pub eager: Vec<OperatorArgs>,
    /// Operators handed an object whose methods run in the region (a chunk step's writer
    /// bean: `.writer(writer)` runs its `write`).
    #[serde(default)]
    pub objects: Vec<OperatorObject>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OperatorObject {
    pub method: String,
    pub calls: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassMethods {
    pub class: String,
    pub methods: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OperatorArgs {
    #[serde(default)]
    pub class: Option<String>,
    pub method: String,
    pub args: Vec<usize>,
}

/// An annotation that imports configuration classes (`annotation`, Spring's `@Import`, whose
/// class literals name them) and the framework's configuration `classes` whose import enables
/// the framework.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportEnabler {
    pub annotation: String,
    pub classes: Vec<String>,
}

/// A row that is a list of method names.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MethodNames {
    pub id: String,
    pub methods: Vec<String>,
}

/// Key sinks: `[[sinks.method]]`, `[[sinks.header]]`, `[[sinks.header_setter]]`,
/// `[[sinks.header_annotation]]`, `[[sinks.constructor]]`, `[[sinks.parameter]]`,
/// `[[sinks.container]]`, `[[sinks.http_call]]`, `[[sinks.http_client_method]]`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SinkTables {
    pub method: Vec<SinkMethod>,
    pub header: Vec<HeaderNames>,
    pub header_setter: Vec<HeaderSetter>,
    pub header_annotation: Vec<Annotations>,
    pub constructor: Vec<SinkConstructor>,
    pub parameter: Vec<SinkParameter>,
    pub container: Vec<KeyContainer>,
    pub http_call: Vec<HttpCall>,
    pub http_client_method: Vec<HttpClientMethod>,
}

/// Calls that send a request, or start one, with a known HTTP method: a key written into a
/// header container counts only where the container goes out on a request that is not a read
/// (GET, HEAD, OPTIONS deduplicate nothing).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpCall {
    pub id: String,
    /// The receiver's type, or the class of a static call (`RequestEntity.get(uri)`).
    pub receiver_types: Vec<String>,
    /// Methods that send or start a read (`getForObject`, `get()`).
    #[serde(default)]
    pub reads: Vec<String>,
    /// Methods that send or start any other request (`postForEntity`, `post()`).
    #[serde(default)]
    pub writes: Vec<String>,
    /// Methods whose argument `method_arg` names the HTTP method (`exchange(url,
    /// HttpMethod.GET, …)`, `method(HttpMethod.POST)`): a read when it is one of `read_values`
    /// (as a constant, or the last part of a dotted name), any other request otherwise, also
    /// when it cannot be told.
    #[serde(default)]
    pub by_argument: Vec<String>,
    #[serde(default)]
    pub method_arg: usize,
    #[serde(default)]
    pub read_values: Vec<String>,
}

/// Abstract methods of declarative clients and the HTTP method their annotations give: every
/// argument of a call goes out on that request.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpClientMethod {
    pub id: String,
    /// Annotations of a read (`@GetMapping`).
    #[serde(default)]
    pub reads: Vec<String>,
    /// Annotations of any other request (`@PostMapping`).
    #[serde(default)]
    pub writes: Vec<String>,
    /// Annotations that name the method in `attribute` (`@RequestMapping(method =
    /// RequestMethod.GET)`), or, with no `attribute`, as the first word of their value
    /// (`@RequestLine("GET /payments/{id}")`): a read when it is one of `read_values`.
    #[serde(default)]
    pub by_attribute: Vec<String>,
    #[serde(default)]
    pub attribute: Option<String>,
    #[serde(default)]
    pub read_values: Vec<String>,
}

/// Calls that write a named value into a request: `headers.set(name, value)`,
/// `body.put(name, value)`, `Map.of(name, value)`. The value (argument 1) is a key when the
/// name (argument 0) is a key name.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeaderSetter {
    pub id: String,
    pub methods: Vec<String>,
    /// A map entry or a JSON field: a body field, unless its container is a header map
    /// (`[[sinks.container]]`) or its name is written the way HTTP headers are, with `-`.
    #[serde(default)]
    pub entry: bool,
}

/// What the named values written into an object of one of `classes` are.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyContainer {
    pub id: String,
    pub classes: Vec<String>,
    pub holds: Holds,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Holds {
    /// Request or message headers.
    Headers,
    /// Fields of a request body or message payload (a JSON object).
    BodyFields,
    /// Nothing sent to a deduplicating system: a logging context, tracing attributes.
    NoKeys,
    /// General-purpose maps (`Map`, `MultiValueMap`), which hold a form or JSON body as often
    /// as headers: a name written the way HTTP headers are, with `-`, is a header; any other
    /// (`idempotency_key`, `idempotencyKey`) a body field.
    Maps,
}

/// Methods whose argument `arg` is the key: on any receiver, or with `classes` only on a
/// receiver of one of them (an SDK method's key parameter: Checkout.com's
/// `paymentsClient.requestPayment(request, idempotencyKey)`). With `arity`, only calls with that
/// many arguments; with `unless_arg_is`, not when argument `arg` is of one of those classes (an
/// overload taking a request object there).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SinkMethod {
    pub id: String,
    pub names: Vec<String>,
    #[serde(default)]
    pub arg: usize,
    #[serde(default)]
    pub classes: Vec<String>,
    #[serde(default)]
    pub arity: Option<usize>,
    #[serde(default)]
    pub unless_arg_is: Vec<String>,
}

/// Key names: of a header, a body field or a map entry (compared lowercase, without `-` and
/// `_`). A name is a key name when it equals one of `names`; or ends with one of `stems`,
/// optionally followed by one of `tails`, after any prefix; or ends with one of `suffixes`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeaderNames {
    pub id: String,
    #[serde(default)]
    pub names: Vec<String>,
    #[serde(default)]
    pub stems: Vec<String>,
    #[serde(default)]
    pub tails: Vec<String>,
    #[serde(default)]
    pub suffixes: Vec<String>,
    /// The names are an alerting service's deduplication key (PagerDuty's `dedup_key`): the
    /// service merges the triggers sent with one key into one incident. An alert is not a side
    /// effect, so RL005 counts such a key only where it is new on every run of the scheduler
    /// (then every replica opens its own incident); a stable one makes the replicas' triggers one.
    #[serde(default)]
    pub alert: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Annotations {
    pub id: String,
    pub annotations: Vec<String>,
    /// Annotations of the method or its interface whose header templates the parameter fills
    /// (Feign's `@Headers("Idempotency-Key: {key}")` with `@Param("key")`): the header the
    /// template names is the parameter's header, not the annotation's value.
    #[serde(default)]
    pub templates: Vec<String>,
    /// The annotation names a field of a serialised body (`@JsonProperty("idempotency_key")`),
    /// not a header: a record component, a constructor parameter or a field of the
    /// application's classes it names with a key name is a body field under that key.
    #[serde(default)]
    pub body: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SinkConstructor {
    pub id: String,
    pub classes: Vec<String>,
    pub arg: usize,
    /// The argument that names what `arg` is (`new BasicHeader(name, value)`): the row counts
    /// only when it is a key name, written as a literal or a project constant.
    #[serde(default)]
    pub name_arg: Option<usize>,
}

/// Parameter names that make a parameter a key (compared lowercase, without `-` and `_`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SinkParameter {
    pub id: String,
    #[serde(default)]
    pub contains: Vec<String>,
    #[serde(default)]
    pub equals: Vec<String>,
}

/// Guards: `[[guards.absence]]`, `[[guards.presence]]`, `[[guards.absent_fallback]]`,
/// `[[guards.first_attempt]]`, `[[guards.store]]`, `[[guards.compute_once]]`,
/// `[[guards.persist]]`, `[[guards.outbox]]`, `[[guards.sweep]]`, `[[guards.cluster_lock]]`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GuardTables {
    pub absence: Vec<MethodNames>,
    pub presence: Vec<MethodNames>,
    pub absent_fallback: Vec<MethodNames>,
    pub first_attempt: Vec<MethodNames>,
    pub store: Vec<Store>,
    pub compute_once: Vec<ComputeOnce>,
    pub persist: Vec<Persist>,
    pub outbox: Vec<Outbox>,
    pub sweep: Vec<Sweep>,
    pub cluster_lock: Vec<ClusterLock>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Store {
    pub id: String,
    pub writes: Vec<String>,
    pub reads: Vec<String>,
    /// The argument naming the entry; absent for a holder with one slot (Temporal's heartbeat
    /// details).
    #[serde(default)]
    pub key_arg: Option<usize>,
    pub value_arg: usize,
    /// The writes store under the key in this property of the receiver, which a `reads` call
    /// without arguments returns (`template.header(k, v)` … `template.headers().containsKey(k)`).
    #[serde(default)]
    pub property: Option<String>,
    /// Only on receivers of these types (or of a type that cannot be told, such as a lambda's
    /// parameter); empty: any receiver.
    #[serde(default)]
    pub receiver_types: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComputeOnce {
    pub id: String,
    pub methods: Vec<String>,
    pub arg: usize,
    /// The receiver is the retry's own state, kept across attempts whatever the variable
    /// (Spring Retry's `RetryContext`); otherwise it must be a holder created before the region.
    #[serde(default)]
    pub retry_state: bool,
    /// The argument is an update function that runs on every call (`updateAndGet`): it keeps
    /// the first value only when it tests its own parameter for absence (`v != null ? v : …`).
    #[serde(default)]
    pub tests_param: bool,
    /// The argument at this index is the function that merges the stored value with the given
    /// one (`Map.merge`): the first value stays only when it returns its first parameter
    /// (`(stored, given) -> stored`); any other function stores the new value.
    #[serde(default)]
    pub keeps_first: Option<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Persist {
    pub id: String,
    pub prefixes: Vec<String>,
}

/// A transactional outbox: a key written only into a persistent entity (a row) inside a retried
/// method whose every attempt is a transaction of its own rolls back with a failed attempt.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Outbox {
    pub id: String,
    /// Annotations of a class whose objects are rows (`@Entity`).
    pub entities: Vec<String>,
    /// Annotations that run a method (or every method of a class) in a transaction.
    pub transactions: Vec<String>,
    /// Propagations (the annotation's `propagation`/`value`, by the constant's simple name)
    /// under which the retried method runs without a transaction.
    #[serde(default)]
    pub without: Vec<String>,
    /// Propagations that take a method called by the attempt out of the attempt's transaction.
    #[serde(default)]
    pub separate: Vec<String>,
    /// Region rows (ids) whose retry runs outside the transaction by default, so that each
    /// attempt is a transaction of its own.
    pub regions: Vec<String>,
    /// Region rows (ids) whose framework runs every attempt in a transaction it opens itself,
    /// whatever the code's annotations (a Spring Batch chunk: a failed attempt rolls the
    /// chunk's transaction back before it is tried again).
    #[serde(default)]
    pub framework_transactions: Vec<String>,
    /// Transaction managers that open no real transaction: a `framework_transactions` region
    /// built in a method that makes one (`new …()`) or takes one as a parameter is not one.
    #[serde(default)]
    pub no_transaction: Vec<String>,
    /// Annotations whose explicit `order` attribute may put the transaction outside the retry.
    #[serde(default)]
    pub orders: Vec<String>,
}

/// A sweep that marks what it selects: the queries whose selection a scheduled firing reads
/// (derived finder names, query annotations) and the setters that change a selected field.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sweep {
    pub id: String,
    /// Subjects of a derived query method, up to its `By` (`find`, `findAll`, `findTop10`…: the
    /// words after the subject and before `By` are ignored).
    pub finders: Vec<String>,
    /// Condition keywords that end a property in a derived query name (`Before`,
    /// `LessThanEqual`), longest first where one ends another.
    pub operators: Vec<String>,
    /// Annotations whose text is the query a repository method runs (`@Query`).
    pub queries: Vec<String>,
    /// Prefixes of the methods that set a property (`set`).
    pub setters: Vec<String>,
}

/// Cluster-wide locks; every column is optional.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterLock {
    pub id: String,
    #[serde(default)]
    pub annotations: Vec<String>,
    #[serde(default)]
    pub methods: Vec<String>,
    #[serde(default)]
    pub wrappers: Vec<String>,
    #[serde(default)]
    pub local_types: Vec<String>,
    /// With `claims`: the classes whose `claims` methods take items off a shared queue or
    /// subscription (each item goes to one consumer).
    #[serde(default)]
    pub classes: Vec<String>,
    #[serde(default)]
    pub claims: Vec<String>,
    /// With `claims`: the argument that names what is claimed (`setIfAbsent(key, value)`), a
    /// key of a shared store rather than an item of a queue. A claim by a key made anew on each
    /// run (random, clock) is won by every replica: it guards nothing. The classes match the
    /// receiver or the root of its call chain (`redis.opsForValue().setIfAbsent(…)`).
    #[serde(default)]
    pub key_arg: Option<usize>,
    /// With `settings`: region rows (ids) that one instance of a cluster runs when the
    /// application sets one of `settings` to `true` (Quartz's clustered job store).
    #[serde(default)]
    pub regions: Vec<String>,
    #[serde(default)]
    pub settings: Vec<String>,
    /// Events published to the instance that won a leader election (`OnGrantedEvent`): a
    /// field its handler sets to `true` says whether this instance leads.
    #[serde(default)]
    pub granted_events: Vec<String>,
    /// Lowercase fragments of SQL text.
    #[serde(default)]
    pub sql: Vec<String>,
    #[serde(default)]
    pub sql_all: Vec<Vec<String>>,
    /// Lowercase fragments of SQL that lock the rows it reads until the transaction ends
    /// (`select … for update`): a guard only where the method that runs it is in a transaction.
    #[serde(default)]
    pub row_lock_sql: Vec<String>,
    /// With `lock_modes`: annotations of a project query method that lock the rows it reads
    /// until the transaction ends when their value is one of `lock_modes`
    /// (`@Lock(LockModeType.PESSIMISTIC_WRITE)`); a guard only inside a transaction, as above.
    #[serde(default)]
    pub lock_annotations: Vec<String>,
    #[serde(default)]
    pub lock_modes: Vec<String>,
}
