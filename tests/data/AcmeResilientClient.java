package com.acme.billing;

import com.acme.platform.retry.Resilient;
import com.acme.platform.http.AcmeRequest;

import java.util.UUID;

public class AcmeResilientClient {

    @Resilient(attempts = 3)
    public void charge(AcmeRequest.Builder request) {
        request.withDedupToken(UUID.randomUUID().toString());
    }

    @Resilient(attempts = 3)
    public void refund(AcmeRequest.Builder request) {
        request.header("X-Acme-Dedup", "r-" + System.currentTimeMillis());
    }
}
