import AppStoreServerAPI
import AppStoreServerAPITesting
import Foundation
import HTTPTypes
import HummingbirdTesting
import StorekeeperInbox
import StorekeeperJobs
import StorekeeperServer
import StorekeeperStore
import Testing

@Suite("Support routes: renewal extension, app account token, test notification")
struct SupportRoutesTests {
    static let chain = "2000000123456789"
    static let extendPath = "/inApps/v1/subscriptions/extend/\(chain)"
    static let tokenPath = "/inApps/v1/transactions/\(chain)/appAccountToken"

    static func link(_ harness: ServerHarness) async throws {
        try await harness.store.apply(
            Changeset(
                appId: "alpha", at: Fixture.t0, links: [CustomerLink(customerId: "c-1", aliases: [.originalTransactionId(chain)])]))
    }

    @Test(
        "extending a renewal date sends Apple's request, answers Apple's result, audits it and queues a refresh", arguments: ServerBackend.available)
    func extend(_ backend: ServerBackend) async throws {
        let apple = AppleAccess()
        let effective = Int64(Fixture.t0.addingTimeInterval(40 * Fixture.day).timeIntervalSince1970 * 1000)
        await apple.transport.expect(
            "PUT", Self.extendPath,
            respond: .json(
                200,
                """
                {"originalTransactionId":"\(Self.chain)","webOrderLineItemId":"7000000000000001","success":true,"effectiveDate":\(effective)}
                """))
        try await apple.run(backend) { harness, client in
            try await Self.link(harness)
            let body = #"{"extendByDays": 30, "extendReasonCode": 3, "requestIdentifier": "support-ticket-42", "reason": "outage on Dec 31"}"#
            let response = try await client.call(.post, "/v1/apps/alpha/subscriptions/\(Self.chain)/extend", key: Fixture.alphaAdmin, body: body)
            #expect(response.status == 200, "\(response.text)")
            #expect(response.json["originalTransactionId"] as? String == Self.chain)
            #expect(response.json["success"] as? Bool == true)
            #expect(response.json["webOrderLineItemId"] as? String == "7000000000000001")
            #expect(response.json["requestIdentifier"] as? String == "support-ticket-42")
            #expect(response.json["effectiveDate"] as? String == "2026-02-10T00:00:00.000Z")

            let requests = await apple.transport.requests
            #expect(requests.count == 1)
            #expect(requests.first?.method == "PUT")
            #expect(requests.first?.url.path == Self.extendPath)
            #expect(requests.first?.url.host == "api.storekit-sandbox.apple.com")
            #expect(requests.first?.headers.contains { $0.name.lowercased() == "authorization" && $0.value.hasPrefix("Bearer ey") } == true)
            let sent = try await apple.sentBody(0)
            #expect(sent["extendByDays"] as? Int == 30)
            #expect(sent["extendReasonCode"] as? Int == 3)
            #expect(sent["requestIdentifier"] as? String == "support-ticket-42")
            #expect(sent.count == 3)

            let audit = try await harness.store.auditEntries(appId: "alpha", limit: 10)
            #expect(audit.count == 1)
            #expect(audit.first?.action == "extend_renewal")
            #expect(audit.first?.customerId == "c-1")
            #expect(audit.first?.reason == "outage on Dec 31")
            #expect(audit.first?.details["requestIdentifier"] == "support-ticket-42")
            #expect(audit.first.map { !$0.actor.contains(Fixture.alphaAdmin) } == true)
            let jobs = try await harness.store.jobs(appId: "alpha", kind: JobKind.refreshSubscription.rawValue, limit: 10)
            #expect(jobs.count == 1)
            #expect(jobs.first?.payload.contains(Self.chain) == true)
        }
    }

    @Test("without a request identifier one is generated and sent to Apple", arguments: ServerBackend.available)
    func generatedIdentifier(_ backend: ServerBackend) async throws {
        let apple = AppleAccess()
        await apple.transport.expect("PUT", Self.extendPath, respond: .json(200, #"{"originalTransactionId":"\#(Self.chain)","success":true}"#))
        try await apple.run(backend) { _, client in
            let response = try await client.call(
                .post, "/v1/apps/alpha/subscriptions/\(Self.chain)/extend", key: Fixture.alphaAdmin,
                body: #"{"extendByDays": 1, "reason": "goodwill"}"#)
            #expect(response.status == 200, "\(response.text)")
            let identifier = try #require(response.json["requestIdentifier"] as? String)
            #expect(UUID(uuidString: identifier) != nil)
            let sent = try await apple.sentBody(0)
            #expect(sent["requestIdentifier"] as? String == identifier)
            #expect(sent["extendReasonCode"] as? Int == 0)
            #expect(sent["extendByDays"] as? Int == 1)
        }
    }

    @Test("setting the app account token sends the lower-case UUID to Apple and audits it", arguments: ServerBackend.available)
    func appAccountToken(_ backend: ServerBackend) async throws {
        let apple = AppleAccess()
        await apple.transport.expect("PUT", Self.tokenPath, respond: HTTPResponseValue(status: 200))
        try await apple.run(backend) { harness, client in
            try await Self.link(harness)
            let body = #"{"appAccountToken": "7F1E0C2A-1111-4000-8000-0000000000AB", "reason": "account merge"}"#
            let response = try await client.call(
                .put, "/v1/apps/alpha/subscriptions/\(Self.chain)/appAccountToken", key: Fixture.alphaAdmin, body: body)
            #expect(response.status == 200, "\(response.text)")
            #expect(response.json["originalTransactionId"] as? String == Self.chain)
            #expect(response.json["appAccountToken"] as? String == "7f1e0c2a-1111-4000-8000-0000000000ab")
            let requests = await apple.transport.requests
            #expect(requests.map(\.method) == ["PUT"])
            #expect(requests.first?.url.path == Self.tokenPath)
            let sent = try await apple.sentBody(0)
            #expect(sent as NSDictionary == ["appAccountToken": "7f1e0c2a-1111-4000-8000-0000000000ab"] as NSDictionary)
            let audit = try await harness.store.auditEntries(appId: "alpha", limit: 10)
            #expect(audit.map(\.action) == ["set_app_account_token"])
            #expect(audit.first?.customerId == "c-1")
            #expect(audit.first?.reason == "account merge")
        }
    }

    @Test(
        "a test notification is requested, and its status shows Apple's attempts and whether it reached the inbox", arguments: ServerBackend.available
    )
    func testNotification(_ backend: ServerBackend) async throws {
        let apple = AppleAccess()
        let token = "ce3af791-365e-4c60-841b-1674b43c1609_1684520010000"
        let uuid = "a7e5e9c4-6b2e-4a55-9e0d-3f1d1d2a9c01"
        let attempt = Int64(Fixture.t0.timeIntervalSince1970 * 1000)
        await apple.transport.expect("POST", "/inApps/v1/notifications/test", respond: .json(200, #"{"testNotificationToken":"\#(token)"}"#))
        try await apple.run(backend) { harness, client in
            let notification = try SignedData.notification(harness.ca, type: "TEST", uuid: uuid, signed: Fixture.t0, transaction: nil, renewal: nil)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(notification.utf8)) as? [String: String])
            let signed = try #require(object["signedPayload"])
            let status = #"{"signedPayload":"\#(signed)","sendAttempts":[{"attemptDate":\#(attempt),"sendAttemptResult":"SUCCESS"}]}"#
            await apple.transport.expect("GET", "/inApps/v1/notifications/test/\(token)", respond: .json(200, status))
            await apple.transport.expect("GET", "/inApps/v1/notifications/test/\(token)", respond: .json(200, status))

            let requested = try await client.call(.post, "/v1/apps/alpha/notifications/test", key: Fixture.alphaAdmin)
            #expect(requested.status == 202, "\(requested.text)")
            #expect(requested.json["testNotificationToken"] as? String == token)

            let pending = try await client.call(.get, "/v1/apps/alpha/notifications/test/\(token)", key: Fixture.alphaAdmin)
            #expect(pending.status == 200, "\(pending.text)")
            #expect(pending.json["testNotificationToken"] as? String == token)
            #expect(pending.json["notificationUUID"] as? String == uuid)
            #expect(pending.json["received"] as? Bool == false)
            #expect(pending.json["inboxId"] == nil)
            let attempts = try #require(pending.json["sendAttempts"] as? [[String: Any]])
            #expect(attempts.count == 1)
            #expect(attempts.first?["result"] as? String == "SUCCESS")
            #expect(attempts.first?["attemptDate"] as? String == "2026-01-01T00:00:00.000Z")

            #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: notification).status == 200)
            try await harness.processor.drain()
            let arrived = try await client.call(.get, "/v1/apps/alpha/notifications/test/\(token)", key: Fixture.alphaAdmin)
            #expect(arrived.status == 200, "\(arrived.text)")
            #expect(arrived.json["received"] as? Bool == true)
            #expect(arrived.json["inboxId"] is Int)
            #expect(arrived.json["inboxState"] as? String == "processed")
            let requests = await apple.transport.requests
            #expect(
                requests.map(\.url.path) == [
                    "/inApps/v1/notifications/test", "/inApps/v1/notifications/test/\(token)", "/inApps/v1/notifications/test/\(token)",
                ])
            #expect(await apple.transport.unmetExpectations.isEmpty)
        }
    }

    /// One valid call of each support route of app alpha: method, path, body.
    static let supportCalls: [(HTTPRequest.Method, String, String?)] = [
        (.post, "/v1/apps/alpha/subscriptions/\(chain)/extend", #"{"extendByDays": 3, "reason": "x"}"#),
        (
            .put, "/v1/apps/alpha/subscriptions/\(chain)/appAccountToken",
            #"{"appAccountToken": "7f1e0c2a-1111-4000-8000-0000000000ab", "reason": "x"}"#
        ),
        (.post, "/v1/apps/alpha/notifications/test", nil),
        (.get, "/v1/apps/alpha/notifications/test/abc", nil),
    ]

    @Test(
        "support routes need alpha's admin key: an app key gets 403, another app's key 404, and Apple is not called",
        arguments: ServerBackend.available)
    func access(_ backend: ServerBackend) async throws {
        let apple = AppleAccess()
        try await apple.run(backend) { harness, client in
            for (method, path, body) in Self.supportCalls {
                let app = try await client.call(method, path, key: Fixture.alphaKey, body: body)
                #expect(app.status == 403, "\(path)")
                #expect(app.json.errorCode == "forbidden")
                let other = try await client.call(method, path, key: Fixture.betaKey, body: body)
                #expect(other.status == 404, "\(path)")
                #expect(other.json.errorCode == "not_found")
                #expect(try await client.call(method, path, body: body).status == 401)
            }
            #expect(await apple.transport.requests.isEmpty)
            #expect(try await harness.store.auditEntries(appId: "alpha", limit: 10).isEmpty)
        }
    }

    @Test("bad bodies get 400 with a JSON error and never reach Apple", arguments: ServerBackend.available)
    func badBodies(_ backend: ServerBackend) async throws {
        let apple = AppleAccess()
        try await apple.run(backend) { _, client in
            let extend = "/v1/apps/alpha/subscriptions/\(Self.chain)/extend"
            let token = "/v1/apps/alpha/subscriptions/\(Self.chain)/appAccountToken"
            let cases: [(HTTPRequest.Method, String, String)] = [
                (.post, extend, #"{"extendByDays": 0, "reason": "x"}"#),
                (.post, extend, #"{"extendByDays": 91, "reason": "x"}"#),
                (.post, extend, #"{"extendByDays": -5, "reason": "x"}"#),
                (.post, extend, #"{"extendByDays": 99999999999, "reason": "x"}"#),
                (.post, extend, #"{"extendByDays": 30}"#),
                (.post, extend, #"{"extendByDays": 30, "reason": "   "}"#),
                (.post, extend, #"{"extendByDays": 30, "extendReasonCode": 4, "reason": "x"}"#),
                (.post, extend, #"{"extendByDays": 30, "requestIdentifier": "", "reason": "x"}"#),
                (.post, extend, #"{"extendByDays": "30", "reason": "x"}"#),
                (.post, extend, ""),
                (.post, extend, "["),
                (.post, "/v1/apps/alpha/subscriptions/not%20a%20chain/extend", #"{"extendByDays": 30, "reason": "x"}"#),
                (.put, token, #"{"appAccountToken": "not-a-uuid", "reason": "x"}"#),
                (.put, token, #"{"appAccountToken": "7f1e0c2a-1111-4000-8000-0000000000ab"}"#),
                (.put, token, #"{"appAccountToken": 5, "reason": "x"}"#),
                (.put, token, "{}"),
            ]
            for (method, path, body) in cases {
                let response = try await client.call(method, path, key: Fixture.alphaAdmin, body: body)
                #expect(response.status == 400, "\(path) \(body) got \(response.status) \(response.text)")
                #expect(response.json.errorCode == "bad_request", "\(body)")
                #expect((response.json["error"] as? [String: Any])?["message"] is String)
            }
            #expect(await apple.transport.requests.isEmpty)
        }
    }

    @Test("Apple's refusal is a 502 naming Apple's error, with nothing audited or queued", arguments: ServerBackend.available)
    func appleRefuses(_ backend: ServerBackend) async throws {
        let apple = AppleAccess()
        await apple.transport.expect(
            "PUT", Self.extendPath,
            respond: .json(
                404, #"{"errorCode":4040005,"errorMessage":"Original transaction id not found."}"#))
        await apple.transport.expect(
            "PUT", Self.tokenPath,
            respond: .json(
                400, #"{"errorCode":4000005,"errorMessage":"Invalid original transaction id."}"#))
        await apple.transport.expect(
            "POST", "/inApps/v1/notifications/test",
            respond: .json(
                401, ""))
        try await apple.run(backend) { harness, client in
            let extend = try await client.call(
                .post, "/v1/apps/alpha/subscriptions/\(Self.chain)/extend", key: Fixture.alphaAdmin, body: #"{"extendByDays": 3, "reason": "x"}"#)
            #expect(extend.status == 502, "\(extend.text)")
            #expect(extend.json.errorCode == "app_store_error")
            #expect(extend.text.contains("4040005"))
            let token = try await client.call(
                .put, "/v1/apps/alpha/subscriptions/\(Self.chain)/appAccountToken", key: Fixture.alphaAdmin,
                body: #"{"appAccountToken": "7f1e0c2a-1111-4000-8000-0000000000ab", "reason": "x"}"#)
            #expect(token.status == 502, "\(token.text)")
            #expect(token.json.errorCode == "app_store_error")
            let test = try await client.call(.post, "/v1/apps/alpha/notifications/test", key: Fixture.alphaAdmin)
            #expect(test.status == 502, "\(test.text)")
            #expect(test.json.errorCode == "app_store_error")
            #expect(try await harness.store.auditEntries(appId: "alpha", limit: 10).isEmpty)
            #expect(try await harness.store.jobs(appId: "alpha", kind: JobKind.refreshSubscription.rawValue, limit: 10).isEmpty)
            #expect(await apple.transport.unmetExpectations.isEmpty)
        }
    }

    @Test("an app without App Store Server API credentials gets 409 no_app_store_credentials", arguments: ServerBackend.available)
    func noCredentials(_ backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            for (method, path, body) in Self.supportCalls {
                let response = try await client.call(method, path, key: Fixture.alphaAdmin, body: body)
                #expect(response.status == 409, "\(path)")
                #expect(response.json.errorCode == "no_app_store_credentials")
            }
            #expect(try await harness.store.auditEntries(appId: "alpha", limit: 10).isEmpty)
        }
    }

    @Test("the OpenAPI document describes the support and offer operations")
    func documented() async throws {
        try await ServerHarness.run(.sqlite) { _, client in
            let paths = try #require(try await client.call(.get, "/openapi.json").json["paths"] as? [String: [String: Any]])
            let operations = [
                ("/v1/apps/{appId}/subscriptions/{originalTransactionId}/extend", "post"),
                ("/v1/apps/{appId}/subscriptions/{originalTransactionId}/appAccountToken", "put"),
                ("/v1/apps/{appId}/notifications/test", "post"),
                ("/v1/apps/{appId}/notifications/test/{token}", "get"),
                ("/v1/apps/{appId}/offers/sign", "post"),
            ]
            for (path, method) in operations {
                let operation = paths[path]?[method] as? [String: Any]
                #expect(operation != nil, "\(method) \(path) is not described")
                let responses = operation?["responses"] as? [String: Any] ?? [:]
                #expect(responses["401"] != nil && responses["404"] != nil && responses["409"] != nil, "\(path)")
            }
        }
    }
}
