//! The prefilter (parse only the files that can matter) finds exactly what parsing every file
//! finds: on the fixtures, and on call chains across files whose middle file has no catalogue
//! word at all.

use retrylint::{Finding, Options, check};
use std::path::{Path, PathBuf};

fn findings(paths: Vec<PathBuf>, prefilter: bool) -> (Vec<Finding>, usize) {
    let mut opts = Options::new(paths);
    opts.prefilter = prefilter;
    // Follow the prefilter to the end, however many files turn out to matter.
    opts.prefilter_max_share = 1.0;
    let report = check(&opts).expect("check runs");
    let syntax = report.errors.iter().filter(|e| e.kind == "syntax").count();
    (report.findings, syntax)
}

/// Every field of every finding (messages, related locations, fingerprints) is compared.
fn same_both_ways(paths: Vec<PathBuf>) -> Vec<Finding> {
    let (skipping, _) = findings(paths.clone(), true);
    let (full, _) = findings(paths, false);
    assert_eq!(
        format!("{skipping:#?}"),
        format!("{full:#?}"),
        "the prefilter changed the findings"
    );
    skipping
}

fn lines(v: &[Finding]) -> Vec<(String, u32, String)> {
    v.iter()
        .map(|f| {
            let name = Path::new(&f.path).file_name().unwrap().to_string_lossy();
            (name.into_owned(), f.line, f.rule.id.to_string())
        })
        .collect()
}

#[test]
fn fixtures_give_the_same_findings_with_and_without_the_prefilter() {
    let v = same_both_ways(vec![
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures"),
    ]);
    assert!(v.len() > 150);
}

fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let p = dir.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

/// The region's file and the sink's file have catalogue words; the middle file has none.
const REGION: &str = r#"package com.acme.billing;

import org.springframework.retry.annotation.Retryable;

public class InvoiceJob {
    private final Ledger ledger = new Ledger();

    @Retryable
    public void settle(long invoiceId) {
        ledger.post(invoiceId);
    }
}
"#;

const MIDDLE: &str = r#"package com.acme.billing;

class Ledger {
    private final Gateway gateway = new Gateway();

    void post(long invoiceId) {
        gateway.submit("invoice-" + invoiceId);
    }
}
"#;

const SINK: &str = r#"package com.acme.billing;

import java.util.UUID;

class Gateway {
    void submit(String reference) {
        Request r = new Request(reference);
        r.setIdempotencyKey(UUID.randomUUID().toString()); //~ RL001
        r.send();
    }
}
"#;

#[test]
fn a_chain_across_three_files_through_a_middle_file_without_catalogue_words() {
    let dir = project(&[
        ("src/com/acme/billing/InvoiceJob.java", REGION),
        ("src/com/acme/billing/Ledger.java", MIDDLE),
        ("src/com/acme/billing/Gateway.java", SINK),
        // Unrelated and broken: never parsed by the prefilter.
        (
            "src/com/acme/other/Unrelated.java",
            "package com.acme.other; class Unrelated { void f( {",
        ),
    ]);
    let v = same_both_ways(vec![dir.path().to_path_buf()]);
    assert_eq!(lines(&v), vec![("Gateway.java".into(), 8, "RL001".into())]);
    // The region in the first file is what makes it a finding.
    assert!(v[0].message.contains("settle"), "{}", v[0].message);
    let (_, syntax_skipping) = findings(vec![dir.path().to_path_buf()], true);
    let (_, syntax_full) = findings(vec![dir.path().to_path_buf()], false);
    assert_eq!((syntax_skipping, syntax_full), (0, 1));
}

/// Forwards: the region and the sink are in the first file; the key comes from a helper in a
/// third file, reached through a middle file with no catalogue word.
#[test]
fn a_key_helper_two_files_away() {
    // (No name the backward pass follows — `collect`, `Payer` — appears in the other files.)
    let region = r#"package org.example.alpha;

import org.springframework.retry.annotation.Retryable;

public class Payer {
    private final Keys keys = new Keys();

    @Retryable
    public void collect(Client client) {
        String key = keys.next(); //~ RL001
        client.setIdempotencyKey(key);
    }
}
"#;
    let middle = r#"package org.example.alpha;

class Keys {
    private final Minter minter = new Minter();

    String next() {
        return "pay-" + minter.mint();
    }
}
"#;
    let helper = r#"package org.example.beta;

public class Minter {
    public String mint() {
        return java.util.UUID.randomUUID().toString();
    }
}
"#;
    let dir = project(&[
        ("org/example/alpha/Payer.java", region),
        (
            "org/example/alpha/Keys.java",
            &middle.replace(
                "class Keys {",
                "import org.example.beta.Minter;\n\nclass Keys {",
            ),
        ),
        ("org/example/beta/Minter.java", helper),
    ]);
    let v = same_both_ways(vec![dir.path().to_path_buf()]);
    assert_eq!(lines(&v), vec![("Payer.java".into(), 10, "RL001".into())]);
}

/// A region whose only link to the effect is a subclass overriding the method it calls, in a
/// file that names neither the region nor the effect.
#[test]
fn an_override_in_a_subclass_file() {
    let base = r#"package com.acme.ship;

public abstract class Carrier {
    public abstract void book(String ref);
}
"#;
    let region = r#"package com.acme.ship;

import org.springframework.retry.annotation.Retryable;

public class Dispatcher {
    private final Carrier carrier;

    Dispatcher(Carrier carrier) { this.carrier = carrier; }

    @Retryable
    public void dispatch(String orderId) {
        carrier.book(orderId);
    }
}
"#;
    let middle = r#"package com.acme.ship;

public class ParcelCarrier extends Carrier {
    private final Api api = new Api();

    @Override
    public void book(String ref) {
        api.create(ref);
    }
}
"#;
    let sink = r#"package com.acme.ship;

class Api {
    void create(String ref) {
        Booking b = new Booking(ref);
        b.setIdempotencyKey(java.util.UUID.randomUUID().toString());
        b.post();
    }
}
"#;
    let dir = project(&[
        ("Carrier.java", base),
        ("Dispatcher.java", region),
        ("ParcelCarrier.java", middle),
        ("Api.java", sink),
    ]);
    let v = same_both_ways(vec![dir.path().to_path_buf()]);
    assert_eq!(lines(&v), vec![("Api.java".into(), 6, "RL001".into())]);
}

/// With the default share, a project where most files may matter is parsed whole: same findings.
#[test]
fn most_files_matter_so_every_file_is_parsed() {
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let (full, _) = findings(vec![fixtures.clone()], false);
    let report = check(&Options::new(vec![fixtures])).expect("check runs");
    assert_eq!(format!("{:#?}", report.findings), format!("{full:#?}"));
}

/// An interceptor runs inside the regions that send through its client (SPEC 3.2): the
/// region's file names only the client's method, the client's file only its configuration
/// class, and the configuration's interceptor holds the source and the key header.
#[test]
fn an_interceptor_reached_through_its_feign_client() {
    let client = r#"package com.acme.wallet.client;

import org.springframework.cloud.openfeign.FeignClient;
import org.springframework.web.bind.annotation.PostMapping;

@FeignClient(name = "wallet", configuration = WalletClientConfig.class)
public interface WalletClient {
    @PostMapping("/v1/transfers")
    String transferFunds(String from, String to, long amountMinor);
}
"#;
    let config = r#"package com.acme.wallet.client;

import feign.RequestInterceptor;
import org.springframework.context.annotation.Bean;

public class WalletClientConfig {
    @Bean
    public RequestInterceptor walletHeaders() {
        return template -> template.header("X-Idempotency-Key", java.util.UUID.randomUUID().toString());
    }
}
"#;
    let job = r#"package com.acme.wallet.jobs;

import com.acme.wallet.client.WalletClient;
import org.springframework.scheduling.annotation.Scheduled;

public class AllowanceJob {
    private final AllowancePayer payer;

    AllowanceJob(AllowancePayer payer) {
        this.payer = payer;
    }

    @Scheduled(cron = "0 0 9 * * *")
    public void run() {
        payer.pay("family", "child", 500);
    }
}
"#;
    let payer = r#"package com.acme.wallet.jobs;

import com.acme.wallet.client.WalletClient;

class AllowancePayer {
    private final WalletClient wallet;

    AllowancePayer(WalletClient wallet) {
        this.wallet = wallet;
    }

    void pay(String from, String to, long amountMinor) {
        wallet.transferFunds(from, to, amountMinor);
    }
}
"#;
    let other = r#"package com.acme.wallet.web;

import com.acme.wallet.client.WalletClient;

public class StatusController {
    String status() {
        return "up";
    }
}
"#;
    let dir = project(&[
        ("com/acme/wallet/client/WalletClient.java", client),
        ("com/acme/wallet/client/WalletClientConfig.java", config),
        ("com/acme/wallet/jobs/AllowanceJob.java", job),
        ("com/acme/wallet/jobs/AllowancePayer.java", payer),
        ("com/acme/wallet/web/StatusController.java", other),
    ]);
    let v = same_both_ways(vec![dir.path().to_path_buf()]);
    assert_eq!(
        lines(&v),
        vec![
            ("WalletClientConfig.java".into(), 9, "RL001".into()),
            ("AllowanceJob.java".into(), 13, "RL005".into()),
        ]
    );
    assert!(
        v[0].message.contains("WalletClient.transferFunds"),
        "{}",
        v[1].message
    );
}

/// A side-effect client written by its fully qualified name (no import) counts as the import
/// would: the field that holds it leads to the effect, also when another file of the tree lets
/// the prefilter skip files.
#[test]
fn a_client_type_written_fully_qualified() {
    let router = r#"package com.shop.routing;

import com.adyen.model.checkout.PaymentRequest;
import com.adyen.model.checkout.PaymentResponse;
import org.springframework.retry.annotation.Retryable;
import org.springframework.stereotype.Service;

@Service
public class AcquirerRouter {

    private final com.adyen.service.checkout.PaymentsApi adyenPayments;

    public AcquirerRouter(com.adyen.service.checkout.PaymentsApi adyenPayments) {
        this.adyenPayments = adyenPayments;
    }

    @Retryable
    public PaymentResponse payEu(PaymentRequest request) throws Exception {
        return adyenPayments.payments(request);
    }
}
"#;
    let dir = project(&[
        ("src/com/shop/routing/AcquirerRouter.java", router),
        (
            "src/com/shop/routing/Region.java",
            "package com.shop.routing;\n\npublic enum Region { EU, US }\n",
        ),
    ]);
    let v = same_both_ways(vec![dir.path().to_path_buf()]);
    assert_eq!(
        lines(&v),
        vec![("AcquirerRouter.java".into(), 19, "RL004".into())]
    );
}

/// An interceptor registered on a client bean (`@Bean RestTemplate` with `.interceptors(…)`,
/// `@Bean WebClient` with `.filter(factory())`) runs inside the regions that send through the
/// bean, injected into a field of another class whose text names neither the interceptor nor a
/// catalogue word.
#[test]
fn an_interceptor_registered_on_a_client_bean() {
    let interceptor = r#"package com.acme.payouts.http;

import java.io.IOException;
import java.util.UUID;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

public class PayoutKeyInterceptor implements ClientHttpRequestInterceptor {
    @Override
    public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
            throws IOException {
        request.getHeaders().set("Idempotency-Key", UUID.randomUUID().toString());
        return execution.execute(request, body);
    }
}
"#;
    let config = r#"package com.acme.payouts.http;

import java.util.UUID;
import org.springframework.boot.web.client.RestTemplateBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.WebClient;

@Configuration
public class HttpClientsConfig {
    @Bean
    RestTemplate payoutsRestTemplate(RestTemplateBuilder builder) {
        return builder.rootUri("https://payouts.example.com").interceptors(new PayoutKeyInterceptor()).build();
    }

    static ExchangeFilterFunction acquirerKey() {
        return (request, next) -> next.exchange(ClientRequest.from(request)
                .header("Idempotency-Key", UUID.randomUUID().toString())
                .build());
    }

    @Bean
    WebClient acquirerWebClient(WebClient.Builder builder) {
        return builder.baseUrl("https://acquirer.example.com").filter(acquirerKey()).build();
    }
}
"#;
    let payouts = r#"package com.acme.payouts.service;

import org.springframework.retry.annotation.Retryable;
import org.springframework.stereotype.Service;
import org.springframework.web.client.RestTemplate;

@Service
public class PayoutService {
    private final RestTemplate rest;

    public PayoutService(RestTemplate rest) {
        this.rest = rest;
    }

    @Retryable(maxAttempts = 3)
    public String payout(String account, long cents) {
        return rest.postForObject("/payouts", new PayoutBody(account, cents), String.class);
    }
}
"#;
    let body = r#"package com.acme.payouts.service;

public record PayoutBody(String account, long cents) {}
"#;
    let cards = r#"package com.acme.payouts.service;

import java.time.Duration;
import org.springframework.stereotype.Service;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

@Service
public class CardAuthorizer {
    private final WebClient acquirer;

    public CardAuthorizer(WebClient acquirer) {
        this.acquirer = acquirer;
    }

    public Mono<String> authorize(String orderId) {
        return acquirer.post().uri("/authorizations").bodyValue(orderId)
                .retrieve().bodyToMono(String.class)
                .retryWhen(Retry.backoff(3, Duration.ofMillis(300)));
    }
}
"#;
    let mut files = vec![
        (
            "com/acme/payouts/http/PayoutKeyInterceptor.java".to_string(),
            interceptor.to_string(),
        ),
        (
            "com/acme/payouts/http/HttpClientsConfig.java".into(),
            config.into(),
        ),
        (
            "com/acme/payouts/service/PayoutService.java".into(),
            payouts.into(),
        ),
        (
            "com/acme/payouts/service/PayoutBody.java".into(),
            body.into(),
        ),
        (
            "com/acme/payouts/service/CardAuthorizer.java".into(),
            cards.into(),
        ),
    ];
    for i in 0..6 {
        files.push((
            format!("com/acme/payouts/util/Util{i}.java"),
            format!("package com.acme.payouts.util;\n\npublic class Util{i} {{\n    static int twice(int x) {{\n        return 2 * x;\n    }}\n}}\n"),
        ));
    }
    let named: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let dir = project(&named);
    // With the default share, as a user runs it: the prefilter does not give up on this tree.
    let mut opts = Options::new(vec![dir.path().to_path_buf()]);
    opts.prefilter = true;
    let default_share = check(&opts).expect("check runs").findings;
    let v = same_both_ways(vec![dir.path().to_path_buf()]);
    assert_eq!(format!("{default_share:#?}"), format!("{v:#?}"));
    assert_eq!(
        lines(&v),
        vec![
            ("HttpClientsConfig.java".into(), 21, "RL001".into()),
            ("PayoutKeyInterceptor.java".into(), 14, "RL001".into()),
        ]
    );
}
