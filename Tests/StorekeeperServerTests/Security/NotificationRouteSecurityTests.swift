import AppStoreModels
import AppStoreTestSigning
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StorekeeperApps
import StorekeeperServer
import StorekeeperStore
import Testing

/// The notification URL needs no key: anyone on the internet can post to it. It must store
/// only what could be genuine and answer every refusal alike.
@Suite("Security: the public notification route")
struct NotificationRouteSecurityTests {
    static func genuine(_ ca: TestCertificateAuthority, uuid: String = UUID().uuidString) throws -> String {
        let t0 = Fixture.t0
        return try SignedData.notification(
            ca, type: "SUBSCRIBED", subtype: "INITIAL_BUY", uuid: uuid, signed: t0,
            transaction: try SignedData.transaction(id: "5001", original: "5001", purchase: t0, expires: t0 + 30 * Fixture.day, signed: t0),
            renewal: nil)
    }

    @Test("a flood of junk, forgeries and wrong passwords is refused alike and stores nothing", arguments: ServerBackend.available)
    func junkFlood(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            let forger = try TestCertificateAuthorityFactory.untrusted()
            let forged = try Self.genuine(forger)
            var bodies = [
                "", "{", "[]", "null", "{}", "{\"x\":1}", "{\"signedPayload\":\"a.b.c\"}", "{\"signedPayload\":5}",
                "{\"notification_type\":\"DID_RENEW\"}", "{\"notification_type\":\"DID_RENEW\",\"password\":\"guess\"}",
                "{\"notification_type\":\"X\\u0000\",\"password\":\"alpha-shared-secret\"}", forged,
            ]
            var generator = SystemRandomNumberGenerator()
            for index in 0..<300 {
                let bytes = (0..<(index % 64 + 1)).map { _ in UInt8.random(in: 0...255, using: &generator) }
                bodies.append(String(decoding: bytes, as: UTF8.self))
            }
            let expected = try await client.call(.post, "/v1/apps/alpha/notifications", body: forged).text
            for body in bodies {
                for app in ["alpha", "beta", "no-such-app"] {
                    let response = try await client.call(.post, "/v1/apps/\(app)/notifications", body: body)
                    #expect(response.status == 400, "\(app) \(body.prefix(40).debugDescription)")
                    #expect(response.text == expected)
                }
            }
            #expect(try await harness.store.pendingCount() == 0)
            for app in ["alpha", "beta"] {
                #expect(try await harness.store.notifications(appId: app, filter: NotificationFilter()).isEmpty)
            }
        }
    }

    @Test(
        "headers kept with a notification are stored as JSON that reads back as sent, quotes and backslashes included",
        arguments: ServerBackend.available)
    func awkwardHeadersRoundTrip(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            let agent = #"App Store/1.0 "quoted" back\slash {"json":1} é/ü"#
            var headers = HTTPFields()
            headers[.contentType] = "application/json; charset=\"utf-8\""
            headers[.userAgent] = agent
            let body = try Self.genuine(harness.ca)
            let response = try await client.execute(
                uri: "/v1/apps/alpha/notifications", method: .post, headers: headers, body: ByteBuffer(string: body))
            #expect(response.status == .ok)
            let rows = try await harness.store.notifications(appId: "alpha", filter: NotificationFilter())
            #expect(rows.count == 1)
            #expect(rows.first?.headers == ["user-agent": agent, "content-type": "application/json; charset=\"utf-8\""])
        }
    }

    @Test("a genuine body padded with junk is stored once, in its canonical form", arguments: ServerBackend.available)
    func paddingDoesNotMultiplyRows(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            let body = try Self.genuine(harness.ca)
            let first = try await client.call(.post, "/v1/apps/alpha/notifications", body: body)
            #expect(first.status == 200)
            // The receipt, written by hand, is what the API's encoder gives (keys sorted).
            let id = try #require(first.json["id"] as? Int)
            #expect(first.text == "{\"duplicate\":false,\"id\":\(id),\"received\":true}")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
            for index in 0..<20 {
                var padded = object
                padded["junk"] = String(repeating: "x", count: 1000 * (index + 1))
                let text = String(decoding: try JSONSerialization.data(withJSONObject: padded), as: UTF8.self)
                let response = try await client.call(.post, "/v1/apps/alpha/notifications", body: text)
                #expect(response.json["id"] as? Int == first.json["id"] as? Int)
                #expect(response.text == "{\"duplicate\":true,\"id\":\(id),\"received\":true}")
            }
            let rows = try await harness.store.notifications(appId: "alpha", filter: NotificationFilter(includesBodies: true))
            #expect(rows.count == 1)
            #expect(rows.first.map { !$0.body.contains("junk") } == true)
        }
    }

    @Test("bodies over the notification route's smaller limit get 413")
    func bodyLimit() async throws {
        try await ServerHarness.run(.sqlite) { _, client in
            let huge = "{\"signedPayload\":\"" + String(repeating: "a", count: 300 * 1024) + "\"}"
            let response = try await client.call(.post, "/v1/apps/alpha/notifications", body: huge)
            #expect(response.status == 413)
            #expect((response.json["error"] as? [String: Any])?["code"] as? String == "payload_too_large")
        }
    }

    @Test("Xcode or LocalTesting beside Sandbox or Production is refused unless allowed; the notification route never takes unsigned data")
    func unsignedEnvironments() async throws {
        var mixed = AppConfiguration(id: "mixed", bundleId: Fixture.bundle, environments: [.sandbox, .xcode])
        #expect(throws: ConfigurationError.self) { try ServerConfiguration(apps: [mixed]).validate() }
        #expect(throws: ConfigurationError.self) {
            try ServerConfiguration(apps: [AppConfiguration(id: "m", bundleId: "b", appAppleId: 1, environments: [.production, .localTesting])])
                .validate()
        }
        mixed.allowUnsignedTestData = true
        try ServerConfiguration(apps: [mixed]).validate()
        try ServerConfiguration(apps: [AppConfiguration(id: "x", bundleId: "b", environments: [.xcode])]).validate()

        let configure: (inout ServerConfiguration) throws -> Void = { configuration in
            configuration.apps[0].environments = [.sandbox, .xcode]
            configuration.apps[0].allowUnsignedTestData = true
        }
        try await ServerHarness.run(
            .sqlite,
            configure: configure
        ) { harness, client in
            let forger = try TestCertificateAuthorityFactory.untrusted()
            let t0 = Fixture.t0
            var transaction = try SignedData.transaction(id: "6001", original: "6001", purchase: t0, expires: t0 + 400 * Fixture.day, signed: t0)
            transaction.environment = .xcode
            let payload = try SignedData.decode(
                ResponseBodyV2DecodedPayload.self,
                [
                    "notificationType": "SUBSCRIBED", "notificationUUID": UUID().uuidString, "version": "2.0", "signedDate": SignedData.ms(t0),
                    "data": ["environment": "Xcode", "bundleId": Fixture.bundle, "signedTransactionInfo": try forger.signTransaction(transaction)],
                ])
            let body = "{\"signedPayload\":\"\(try forger.signNotification(payload))\"}"
            let response = try await client.call(.post, "/v1/apps/alpha/notifications", body: body)
            #expect(response.status == 400)
            #expect(try await harness.store.pendingCount() == 0)
            // Genuine Sandbox data still gets in.
            #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: try Self.genuine(harness.ca)).status == 200)
        }
    }

    @Test("listings carry metadata only, even at the largest limit", arguments: ServerBackend.available)
    func listingsWithoutBodies(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            for _ in 0..<5 {
                #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: try Self.genuine(harness.ca)).status == 200)
            }
            try await harness.processor.drain()
            let listing = try await client.call(.get, "/v1/apps/alpha/notifications?limit=1000", key: Fixture.alphaKey)
            let rows = try #require(listing.json["notifications"] as? [[String: Any]])
            #expect(rows.count == 5)
            #expect(rows.allSatisfy { $0["body"] == nil && $0["notificationType"] as? String == "SUBSCRIBED" })
            #expect(!listing.text.contains("signedPayload"))
        }
    }

    @Test("U+0000 in a path, a query or a JSON string is a 400, never a 500", arguments: ServerBackend.available)
    func nulEverywhere(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { _, client in
            for uri in [
                "/v1/apps/alpha/notifications?type=A%00B", "/v1/apps/alpha/notifications?originalTransactionId=%00",
                "/v1/apps/alpha/customers/a%00b", "/v1/apps/alpha/subscriptions/1%00",
            ] {
                let response = try await client.call(.get, uri, key: Fixture.alphaAdmin)
                #expect(response.status == 400, "\(uri)")
            }
            let grants = [
                #"{"productId": "pro.lifetime", "reason": "x\u0000y"}"#, #"{"productId": "pro\u0000", "reason": "r"}"#,
                #"{"productId": "pro.lifetime", "reason": "r", "grantId": "\u0000"}"#,
            ]
            for body in grants {
                let response = try await client.call(.post, "/v1/apps/alpha/customers/c1/grants", key: Fixture.alphaAdmin, body: body)
                #expect(response.status == 400, "\(body)")
            }
            let long = String(repeating: "t", count: 300)
            #expect(try await client.call(.get, "/v1/apps/alpha/notifications?type=\(long)", key: Fixture.alphaKey).status == 400)
            #expect(try await client.call(.get, "/v1/apps/alpha/notifications?state=failed", key: Fixture.alphaKey).status == 200)
        }
    }
}
